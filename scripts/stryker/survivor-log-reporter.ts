// A StrykerJS reporter that appends each undetected mutant to a text file as soon as it is tested.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { MutantResult, StrykerOptions } from '@stryker-mutator/api/core';
import { commonTokens, declareClassPlugin, PluginKind, tokens } from '@stryker-mutator/api/plugin';
import type { Reporter } from '@stryker-mutator/api/report';

/**
 * Stryker's own reporters write their results when the whole run ends; a folder's run takes tens of minutes on a
 * busy machine. This one writes a line per surviving, uncovered or timed-out mutant while the run goes on
 * (`file:line:column status mutator | original line => replacement`), so the tests they call for can be written
 * during the run, and a stopped run still leaves what it found.
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
    const { line, column } = result.location.start;
    const original = this.line(result.fileName, line);
    const replacement = (result.replacement ?? '').replace(/\s+/g, ' ').slice(0, 100);
    appendFileSync(
      this.fileName,
      `${result.fileName}:${line}:${column} ${result.status} ${result.mutatorName} | ${original} => ${replacement}\n`,
    );
  }

  private line(fileName: string, line: number): string {
    let lines = this.sources.get(fileName);
    if (lines === undefined) {
      lines = readFileSync(fileName, 'utf8').split('\n');
      this.sources.set(fileName, lines);
    }
    return (lines[line - 1] ?? '').trim().slice(0, 120);
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
