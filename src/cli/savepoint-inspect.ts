// `weir savepoint inspect`: summarises a savepoint or checkpoint on disk, verifying its checksums.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  loadLatestCheckpoint,
  loadSnapshotDirectory,
  type LoadedCheckpoint,
} from '../execution/checkpoint-storage.ts';

/**
 * Prints (to `print`; problems to `warn`) the summary of the savepoint, `chk-<id>` directory or checkpoint storage directory (its newest usable
 * checkpoint) at `path`; returns the exit code (1 when nothing usable is there).
 */
export function inspectSavepoint(
  path: string,
  print: (line: string) => void,
  warn: (line: string) => void,
): number {
  let loaded: LoadedCheckpoint | undefined;
  try {
    loaded =
      existsSync(join(path, '_metadata')) || path.endsWith('_metadata')
        ? loadSnapshotDirectory(path)
        : loadLatestCheckpoint(path, {
            trace: () => {},
            debug: () => {},
            info: (_fields, message) => warn(`weir: ${message}`),
            warn: (_fields, message) => warn(`weir: ${message}`),
            error: (_fields, message) => warn(`weir: ${message}`),
          });
  } catch (error) {
    warn(`weir: ${(error as Error).message}`);
    return 1;
  }
  if (loaded === undefined) {
    warn(`weir: no usable checkpoint or savepoint at ${path}`);
    return 1;
  }
  for (const line of describeSnapshot(loaded)) print(line);
  return 0;
}

/** A human summary: what the snapshot is, then one line per operator. */
export function describeSnapshot(loaded: LoadedCheckpoint): string[] {
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
