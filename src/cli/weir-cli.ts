#!/usr/bin/env node
// The `weir` command line: inspects savepoints and checkpoints (`weir savepoint inspect <path>`).
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  loadLatestCheckpoint,
  loadSnapshotDirectory,
  type LoadedCheckpoint,
} from '../execution/checkpoint-storage.ts';

const USAGE = `usage:
  weir savepoint inspect <path>   summarise a savepoint, a chk-<id> directory, or a checkpoint storage directory
                                  (its newest usable checkpoint); verifies every checksum
  weir --help, -h                 print this help
  weir --version, -v              print the version of weir`;

/** The package's version, read from its package.json (two levels up from both src/cli and dist/cli). */
function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

/**
 * Runs the CLI with `argv` (without node and script); returns the exit code. Output goes to `print`.
 *
 * @example
 * runWeirCli(['savepoint', 'inspect', './savepoints/savepoint-12-a1b2c3']);
 */
export function runWeirCli(
  argv: readonly string[],
  print: (line: string) => void = (l) => console.log(l),
): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // An unknown option or a value given to a flag: say which, then how to call the tool.
    print(`weir: ${(error as Error).message}`);
    print(USAGE);
    return 2;
  }
  if (parsed.values.help === true) {
    print(USAGE);
    return 0;
  }
  if (parsed.values.version === true) {
    print(version());
    return 0;
  }
  const [group, command, path, ...rest] = parsed.positionals;
  if (group !== 'savepoint' || command !== 'inspect' || path === undefined || rest.length > 0) {
    print(
      parsed.positionals.length === 0
        ? 'weir: no command given'
        : `weir: unknown command '${parsed.positionals.join(' ')}'`,
    );
    print(USAGE);
    return 2;
  }
  let loaded: LoadedCheckpoint | undefined;
  try {
    loaded =
      existsSync(join(path, '_metadata')) || path.endsWith('_metadata')
        ? loadSnapshotDirectory(path)
        : loadLatestCheckpoint(path, print);
  } catch (error) {
    print(`weir: ${(error as Error).message}`);
    return 1;
  }
  if (loaded === undefined) {
    print(`weir: no usable checkpoint or savepoint at ${path}`);
    return 1;
  }
  for (const line of describe(loaded)) print(line);
  return 0;
}

/** A human summary: what the snapshot is, then one line per operator. */
export function describe(loaded: LoadedCheckpoint): string[] {
  const { metadata, snapshot } = loaded;
  const lines = [
    `${metadata.kind} ${metadata.checkpointId} of job '${metadata.jobName}', taken ${new Date(metadata.timestamp).toISOString()}`,
    `path: ${loaded.path}`,
    `data files: ${Object.keys(metadata.dataFiles).length}, checksums verified`,
    'operators (uid: parallelism, key groups, keyed state bytes, timer bytes, operator state, finished subtasks):',
  ];
  for (const [uid, op] of Object.entries(snapshot.operators)) {
    const keyed = op.keyedState.reduce((n, g) => n + g.bytes.byteLength, 0);
    const timers = op.timers.reduce((n, g) => n + g.bytes.byteLength, 0);
    const opState = op.operatorState.filter((s) => s !== undefined).length;
    const finished = op.finished.filter(Boolean).length;
    lines.push(
      `  ${uid}: p=${op.parallelism}, ${op.keyedState.length} key groups, ${keyed} B keyed, ${timers} B timers, ${opState} with operator state, ${finished}/${op.parallelism} finished`,
    );
  }
  return lines;
}

const invokedDirectly =
  process.argv[1] !== undefined &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (invokedDirectly) process.exitCode = runWeirCli(process.argv.slice(2));
