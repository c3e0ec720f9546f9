// Runs the checkpoint-state benchmark in both systems: Weir's job (bench/weir/checkpoint-job.ts) in a child process
// per backend, Flink's (CheckpointStateMain) in one JVM; each builds N MB of keyed state and checkpoints it once.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CheckpointStateResult } from '../weir/checkpoint-job.ts';
import { runFlinkMain } from './flink-main.ts';

const WEIR_JOB = fileURLToPath(new URL('../weir/checkpoint-job.ts', import.meta.url));

export interface CheckpointStateOptions {
  /** Megabytes of values to build, one size after another. */
  readonly sizesMb: readonly number[];
  readonly runs: number;
  /** Also run Flink's side (heap and RocksDB); the Flink build must be done. */
  readonly flink: boolean;
  /** Weir's side in this process (the smoke run) instead of a child process per backend. */
  readonly inProcess: boolean;
}

/** Every run of every system at every size, Weir's first. */
export async function runCheckpointState(
  options: CheckpointStateOptions,
  log: (line: string) => void,
): Promise<CheckpointStateResult[]> {
  const results: CheckpointStateResult[] = [];
  const report = (r: CheckpointStateResult): void => {
    results.push(r);
    log(
      `  checkpoint-state ${r.system} ${r.mb} MB (${r.keys.toLocaleString('en-US')} keys): checkpoint ${r.durationMs.toFixed(0)} ms, ` +
        `${(r.checkpointedBytes / 1e6).toFixed(1)} MB written, ${(r.directoryBytes / 1e6).toFixed(1)} MB on disk, built in ${(r.buildMs / 1000).toFixed(1)} s`,
    );
  };
  const sizes = options.sizesMb.join(',');
  for (const backend of ['heap', 'lmdb'] as const) {
    if (options.inProcess) {
      const { checkpointStateWeir } = await import('../weir/checkpoint-job.ts');
      for (const mb of options.sizesMb)
        for (let run = 0; run < options.runs; run++) report(await checkpointStateWeir(backend, mb, run));
    } else {
      for (const r of await weirInChild(backend, sizes, options.runs)) report(r);
    }
  }
  if (options.flink) {
    await runFlinkMain<CheckpointStateResult & { type: string }>(
      'CheckpointStateMain',
      ['--mb', sizes, '--runs', String(options.runs)],
      (line) => {
        if (line.type !== 'checkpoint-state') return;
        const { type: _type, ...result } = line;
        report(result);
      },
    );
  }
  return results;
}

/** Weir's job for one backend in a fresh process (a gigabyte of state needs a larger heap than the runner's). */
function weirInChild(backend: string, sizes: string, runs: number): Promise<CheckpointStateResult[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--max-old-space-size=8192',
        '--import',
        'tsx',
        WEIR_JOB,
        '--mb',
        sizes,
        '--backend',
        backend,
        '--runs',
        String(runs),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-10_000)));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`checkpoint-job.ts (${backend}) exited with ${code}: ${stderr.trim()}`));
        return;
      }
      resolve(
        stdout
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as CheckpointStateResult),
      );
    });
  });
}
