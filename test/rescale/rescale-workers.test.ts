// Rescaling in worker mode: savepoints restore at another parallelism with subtasks on worker threads, every record once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { FileSource, GeneratorSource, loadSavepoint, StreamExecutionEnvironment } from '../../src/index.ts';
import { buildJob, event, expected, jsonl, range, type Ev } from './rescale-job.ts';
import { freshDirs } from '../support/fresh-dirs.ts';
import { committedLines as committed } from '../support/committed-lines.ts';

const job = fileURLToPath(new URL('./rescale-worker-job.ts', import.meta.url));
const fresh = freshDirs('weir-rescale-workers-');
const outputs = () => ({ records: fresh('records'), windows: fresh('windows') });

/** Runs the job module as its own process (its workers import it again); resolves with its standard output. */
function runJob(
  mode: 'savepoint' | 'restore',
  input: string,
  out: { records: string; windows: string },
  parallelism: number,
  workers: number,
  path: string,
  progressAt = 0,
): Promise<string> {
  const args = [job, mode, input, out.records, out.windows, String(parallelism), String(workers), path];
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', ...args, String(progressAt)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('error', reject);
    proc.on('exit', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${mode} exited with ${code}: ${stderr}`)),
    );
  });
}

/** The first run's committed output plus the restored run's is exactly the whole input's output. */
function assertExactlyOnce(
  ids: readonly number[],
  first: { records: string; windows: string },
  rest: { records: string; windows: string },
  what: string,
): void {
  const whole = expected(ids);
  assert.deepEqual(
    [...committed(first.records), ...committed(rest.records)].sort(),
    whole.records,
    `records, ${what}`,
  );
  assert.deepEqual(
    [...committed(first.windows), ...committed(rest.windows)].sort(),
    whole.windows,
    `window sums, ${what}`,
  );
}

describe('rescaling a savepoint in worker mode', { timeout: 300_000 }, () => {
  it('FileSource: taken at 3 on one thread, restored at 2 on 2 worker threads', async () => {
    const dir = fresh('files');
    mkdirSync(dir);
    for (let f = 0; f < 7; f++)
      writeFileSync(join(dir, `part-${f}.jsonl`), jsonl(range(f * 4_000, (f + 1) * 4_000)));
    const ids = range(0, 28_000);

    const first = outputs();
    // On one thread, as the test says, whatever the suite's default (npm run test:workers): the savepoint is taken
    // once the map counted 2,000 records in this thread's memory.
    const env = StreamExecutionEnvironment.create({ parallelism: 3, workers: 1 });
    env.enableCheckpointing(1_000_000, { storage: fresh('chk') });
    let seen = 0;
    let reached!: () => void;
    const progress = new Promise<void>((resolve) => (reached = resolve));
    buildJob(env, FileSource.jsonLines<Ev>(dir, { batchSize: 100 }), first, () => {
      if (++seen === 2_000) reached();
    });
    const client = await env.executeAsync('at parallelism 3');
    await progress;
    const savepoint = await client.triggerSavepoint(fresh('savepoints'));
    await client.cancel().catch(() => {});
    await client.result.catch(() => {});
    const before = committed(first.records).length;
    assert.ok(before >= 2_000 && before < ids.length, `mid-stream: ${before} records`);

    const rest = outputs();
    assert.match(await runJob('restore', `files:${dir}`, rest, 2, 2, savepoint), /DONE/);
    assertExactlyOnce(ids, first, rest, 'restored at parallelism 2 on 2 workers');
  });

  it('GeneratorSource: taken at 3 on 2 worker threads, restored at 5 on 2 workers and at 1 on one thread', async () => {
    const count = 30_000;
    const ids = range(0, count);
    const first = outputs();
    const stdout = await runJob('savepoint', `generator:${count}`, first, 3, 2, fresh('savepoints'), 1_000);
    const savepoint = /SAVEPOINT (.+)/.exec(stdout)?.[1];
    assert.ok(savepoint !== undefined, stdout);
    const state = loadSavepoint(savepoint).operators['events']!;
    assert.equal(state.parallelism, 3);
    assert.ok((state.operatorState as unknown[][]).flat().length > 0, 'some splits are unfinished');
    const before = committed(first.records).length;
    assert.ok(before >= 1_000 && before < count, `mid-stream: ${before} records`);

    const atFive = outputs();
    assert.match(await runJob('restore', `generator:${count}`, atFive, 5, 2, savepoint), /DONE/);
    assertExactlyOnce(ids, first, atFive, 'restored at parallelism 5 on 2 workers');

    const atOne = outputs();
    // On one thread, as the test says, whatever the suite's default.
    const env = StreamExecutionEnvironment.create({ parallelism: 1, workers: 1 });
    env.enableCheckpointing(1_000_000, { storage: fresh('chk') });
    buildJob(env, GeneratorSource.of(count, event), atOne);
    await env.execute('restored at 1', { savepointPath: savepoint });
    assertExactlyOnce(ids, first, atOne, 'restored at parallelism 1 on one thread');
  });
});
