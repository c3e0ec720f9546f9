// Runs the fault-tolerance example: crashes once on purpose, restarts from the latest checkpoint, commits once.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { buildFaultTolerantJob } from './fault-tolerant-job.ts';

// In worker mode each worker loads this module again: the directory made here travels to them in the environment.
const dir =
  process.argv[2] ??
  (process.env.WEIR_FAULT_TOLERANCE_DIR ??= mkdtempSync(join(tmpdir(), 'weir-fault-tolerance-')));
const env = StreamExecutionEnvironment.create({ parallelism: 2 });
buildFaultTolerantJob(env, {
  checkpoints: join(dir, 'checkpoints'),
  output: join(dir, 'output'),
  stateDirectory: join(dir, 'state'),
  clicks: 60_000,
  ratePerSecond: 40_000,
  failOnce: { id: 30_000, marker: join(dir, 'crashed-once') },
});
await env.execute('clicks per user and minute');
const files = readdirSync(join(dir, 'output')).filter((f) => f.startsWith('part-'));
const lines = files
  .flatMap((f) =>
    readFileSync(join(dir, 'output', f), 'utf8')
      .split('\n')
      .filter(Boolean),
  )
  .sort();
const total = lines.reduce((n, line) => n + (JSON.parse(line) as { clicks: number }).clicks, 0);
// How the output is cut into part files follows the checkpoints, which are taken on processing time; what the
// files hold does not. Standard output shows only the latter, so it is the same on every run.
console.log(`${lines.length} user-minutes committed; ${total} clicks counted (60000 generated)`);
console.log(`sha-256 of the sorted results: ${createHash('sha256').update(lines.join('\n')).digest('hex')}`);
console.error(`${files.length} committed part files in ${join(dir, 'output')}`);
console.error(
  `inspect the last checkpoint: node --import tsx src/cli/weir-cli.ts savepoint inspect ${join(dir, 'checkpoints')}`,
);
