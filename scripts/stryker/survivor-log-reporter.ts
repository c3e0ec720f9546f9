// A StrykerJS reporter that appends each undetected mutant to a text file as soon as it is tested.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { MutantResult, Position, StrykerOptions } from '@stryker-mutator/api/core';
import { commonTokens, declareClassPlugin, PluginKind, tokens } from '@stryker-mutator/api/plugin';
import type { Reporter } from '@stryker-mutator/api/report';

/**
 * Stryker's own reporters write their results when the whole run ends; a folder's run takes tens of minutes on a
 * busy machine. This one writes a line per surviving, uncovered or timed-out mutant while the run goes on
 * (`file:line:column status mutator | original code => replacement`), so the tests they call for can be written
 * during the run, and a stopped run still leaves what it found. The original code is the mutated span only: several
 * mutants of one line replace different parts of it (`a !== undefined && b` => `true` may be the whole condition or
 * its first operand), and reading the whole line as the span makes a mutant impossible to reproduce by hand.
 */
class SurvivorLogReporter implements Reporter {
  static inject = tokens(commonTokens.options);

  private readonly fileName: string;
  private readonly sources = new Map<string, string[]>();

  constructor(options: StrykerOptions) {
    const config = (options as { survivorLog?: { fileName?: string } }).survivorLog;
    this.fileName = config?.fileName ?? 'reports/mutation/survivors.txt';
    mkdirSync(dirname(this.fileName), { recursive: true });
    writeFileSync(this.fileName, '');
  }

  onMutantTested(result: Readonly<MutantResult>): void {
    if (result.status !== 'Survived' && result.status !== 'NoCoverage' && result.status !== 'Timeout') return;
    const { start, end } = result.location;
    const original = this.span(result.fileName, start, end);
    const replacement = (result.replacement ?? '').replace(/\s+/g, ' ').slice(0, 100);
    appendFileSync(
      this.fileName,
      `${result.fileName}:${start.line}:${start.column} ${result.status} ${result.mutatorName} | ${original} => ${replacement}\n`,
    );
  }

  /** The source text the mutant replaces (a reported location counts lines and columns from 1), on one line. */
  private span(fileName: string, start: Position, end: Position): string {
    let lines = this.sources.get(fileName);
    if (lines === undefined) {
      lines = readFileSync(fileName, 'utf8').split('\n');
      this.sources.set(fileName, lines);
    }
    const text =
      start.line === end.line
        ? (lines[start.line - 1] ?? '').slice(start.column - 1, end.column - 1)
        : [
            (lines[start.line - 1] ?? '').slice(start.column - 1),
            ...lines.slice(start.line, end.line - 1),
            (lines[end.line - 1] ?? '').slice(0, end.column - 1),
          ].join('\n');
    return text.replace(/\s+/g, ' ').trim().slice(0, 120);
  }
}

/** The option this reporter reads: `survivorLog.fileName`, the text file to write. */
export const strykerValidationSchema = {
  $schema: 'http://json-schema.org/draft-07/schema',
  type: 'object',
  properties: {
    survivorLog: {
      type: 'object',
      additionalProperties: false,
      properties: { fileName: { type: 'string' } },
    },
  },
};

export const strykerPlugins = [declareClassPlugin(PluginKind.Reporter, 'survivor-log', SurvivorLogReporter)];
