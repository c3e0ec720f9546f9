// End-to-end checkpointing in one process: restarts, exactly-once commits, savepoints, rescaling, corrupt checkpoints.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigurationError } from '../core/errors.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from '../operators/stream-operator.ts';
import type { KeyedProcessFunction } from '../core/functions.ts';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { FileSource } from '../connectors/file-source.ts';
import { GeneratorSource } from '../connectors/generator-source.ts';
import { ValueStateDescriptor } from '../core/state-descriptor.ts';
import { LmdbStateBackend } from '../state/lmdb/lmdb-state-backend.ts';
import { WatermarkStrategy } from '../time/watermark-strategy.ts';
import type { CheckpointEvent } from './checkpoint-config.ts';
import { CorruptCheckpointError } from './checkpoint-metadata.ts';
import { loadLatestCheckpoint, loadSavepoint, loadSnapshotDirectory } from './checkpoint-storage.ts';
import { JobCancelledError } from './job-cancelled-error.ts';
import { RestartStrategies } from './restart-strategies.ts';
import { FileSink } from '../connectors/file-sink.ts';
import { DeliveryGuarantee } from '../core/delivery-guarantee.ts';
import { RecordingLogger } from '../../test/support/recording-logger.ts';
import { freshDirs } from '../../test/support/fresh-dirs.ts';
import { Progress } from '../../test/support/progress.ts';
import { committedLines as committed } from '../../test/support/committed-lines.ts';

const fresh = freshDirs('weir-checkpointing-');

interface Ev {
  id: number;
  key: number;
  ts: number;
}

/** Per-key sums emitted once, at the end of input: the output is the same however the run was interrupted. */
const sumAtEnd = (): KeyedProcessFunction<number, Ev, { key: number; sum: number; n: number }> &
  Record<string, any> => ({
  open(ctx) {
    this.sum = ctx.getState(new ValueStateDescriptor<number>('sum', { defaultValue: 0 }));
    this.n = ctx.getState(new ValueStateDescriptor<number>('n', { defaultValue: 0 }));
  },
  processElement(e, ctx) {
    this.sum.update(this.sum.value() + e.id);
    this.n.update(this.n.value() + 1);
    ctx.timerService().registerEventTimeTimer(Number.MAX_SAFE_INTEGER);
  },
  onTimer(_t, ctx, out) {
    out.collect({ key: ctx.getCurrentKey(), sum: this.sum.value(), n: this.n.value() });
  },
});

function expectedSums(count: number, keys: number): string[] {
  const sums = new Map<number, { sum: number; n: number }>();
  for (let i = 0; i < count; i++) {
    const s = sums.get(i % keys) ?? { sum: 0, n: 0 };
    s.sum += i;
    s.n++;
    sums.set(i % keys, s);
  }
  return [...sums].map(([key, s]) => JSON.stringify({ key, sum: s.sum, n: s.n })).sort();
}

/** The test job: a generated stream (optionally failing once at `failAt`), summed per key, into a 2PC sink. */
/**
 * Runs the checkpointed job until `count` checkpoints have completed, then cancels it: the number of checkpoints
 * follows the job's progress, not how fast the machine runs a bounded input.
 */
async function runUntilCheckpoints(
  env: StreamExecutionEnvironment,
  storage: string,
  count: number,
): Promise<void> {
  let completed = 0;
  let reached!: () => void;
  const enough = new Promise<void>((done) => (reached = done));
  env.enableCheckpointing(10, {
    storage,
    retained: 5,
    listener: (e) => {
      if (e.type === 'completed' && ++completed >= count) reached();
    },
  });
  buildJob(env, fresh('out'), 100_000_000, { rate: 20_000 });
  const client = await env.executeAsync('until-checkpoints');
  await Promise.race([enough, client.result]);
  await client.cancel();
  await assert.rejects(client.result, JobCancelledError);
}

function buildJob(
  env: StreamExecutionEnvironment,
  out: string,
  count: number,
  opts: {
    rate?: number;
    failAt?: { id: number; armed: boolean };
    keyedParallelism?: number;
    progress?: Progress;
  },
) {
  const events = env
    .fromSource(
      GeneratorSource.of(count, (i): Ev => ({ id: i, key: i % 7, ts: i }), {
        batchSize: 100,
        ...(opts.rate ? { ratePerSecond: opts.rate } : {}),
      }),
      WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.ts),
      'events',
    )
    .setParallelism(2)
    .uid('events');
  const checked = events
    .map((e) => {
      if (opts.failAt?.armed === true && e.id === opts.failAt.id) {
        opts.failAt.armed = false;
        throw new Error(`injected failure at record ${e.id}`);
      }
      opts.progress?.record();
      return e;
    })
    .uid('check');
  const sums = checked
    .keyBy((e) => e.key)
    .process(sumAtEnd(), 'sums')
    .uid('sums');
  if (opts.keyedParallelism !== undefined) sums.setParallelism(opts.keyedParallelism);
  sums.sinkTo(FileSink.jsonLines(out, { deliveryGuarantee: DeliveryGuarantee.EXACTLY_ONCE })).uid('sink');
}

describe('checkpointing', () => {
  it('restarts from the latest checkpoint after a failure and commits every result exactly once', async () => {
    const out = fresh('out');
    const events: CheckpointEvent[] = [];
    const logger = new RecordingLogger();
    const env = StreamExecutionEnvironment.create({ parallelism: 2, logger });
    env.enableCheckpointing(20, { storage: fresh('chk'), listener: (e) => events.push(e) });
    env.setRestartStrategy(RestartStrategies.fixedDelay(2, 0));
    buildJob(env, out, 6_000, { rate: 20_000, failAt: { id: 4_000, armed: true } });
    await env.execute('restart');
    assert.ok(
      events.some((e) => e.type === 'completed'),
      'no checkpoint completed',
    );
    assert.match(
      logger.messages.join('\n'),
      /injected failure at record 4000.*restart 1 .*from checkpoint \d+/s,
    );
    assert.deepEqual(committed(out), expectedSums(6_000, 7));
  });

  it('fails the job when no restart is allowed, leaving nothing committed', async () => {
    const out = fresh('out');
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    env.enableCheckpointing(20, { storage: fresh('chk') });
    env.setRestartStrategy(RestartStrategies.noRestart());
    buildJob(env, out, 2_000, { failAt: { id: 1_500, armed: true } });
    await assert.rejects(env.execute('no-restart'), /injected failure at record 1500/);
    assert.deepEqual(committed(out), []);
  });

  it('takes a savepoint on request, cancels, and resumes from it at another parallelism', async () => {
    const out = fresh('out');
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    env.enableCheckpointing(1_000_000, { storage: fresh('chk') });
    const progress = new Progress(1_000);
    buildJob(env, out, 4_000, { rate: 8_000, progress });
    const client = await env.executeAsync('savepoint');
    await progress.reached;
    const savepoint = await client.triggerSavepoint(fresh('savepoints'));
    await client.cancel();
    await assert.rejects(client.result, JobCancelledError);
    const snapshot = loadSavepoint(savepoint);
    assert.equal(snapshot.kind, 'savepoint');
    assert.deepEqual(committed(out), [], 'sums are only emitted at the end');

    const env2 = StreamExecutionEnvironment.create({ parallelism: 2 });
    env2.enableCheckpointing(50, { storage: fresh('chk') });
    buildJob(env2, out, 4_000, { keyedParallelism: 3 });
    await env2.execute('resumed', { savepointPath: savepoint });
    assert.deepEqual(committed(out), expectedSums(4_000, 7));
  });

  it('restores a rate-limited generator savepoint taken at parallelism 2 at parallelism 3, counting each key once', async () => {
    const out = fresh('out');
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    env.enableCheckpointing(1_000_000, { storage: fresh('chk') });
    const progress = new Progress(10_000);
    buildJob(env, out, 30_000, { rate: 10_000, progress });
    const client = await env.executeAsync('rescale-from');
    await progress.reached;
    const savepoint = await client.triggerSavepoint(fresh('savepoints'));
    await client.cancel();
    const positions = loadSavepoint(savepoint).operators['events']!.operatorState;
    assert.equal(positions.length, 2);
    assert.ok(
      positions.every((p) => Array.isArray(p) && (p as { next: number }[])[0]!.next > 2_000),
      `mid-way positions: ${JSON.stringify(positions)}`,
    );

    const env3 = StreamExecutionEnvironment.create({ parallelism: 3 });
    env3.enableCheckpointing(50, { storage: fresh('chk') });
    buildJob(env3, out, 30_000, {});
    await env3.execute('rescaled', { savepointPath: savepoint });
    assert.deepEqual(committed(out), expectedSums(30_000, 7));
  });

  it('refuses to restore operator state kept per subtask at another parallelism, naming the operator', async () => {
    /** A custom operator whose state is one number per subtask, with the default per-subtask distribution. */
    class Counting extends AbstractStreamOperator<Ev> implements OneInputStreamOperator<Ev, Ev> {
      private seen = 0;
      processElement(value: Ev, timestamp: number): void {
        this.seen++;
        this.output.collect(value, timestamp);
      }
      override snapshotOperatorState(): unknown {
        return this.seen;
      }
    }
    const build = (env: StreamExecutionEnvironment, progress?: Progress) =>
      env
        .fromSource(
          GeneratorSource.of(1_000_000, (i): Ev => ({ id: i, key: i % 7, ts: i }), { batchSize: 100 }),
          undefined,
          'events',
        )
        .uid('events')
        .map((e) => {
          progress?.record();
          return e;
        })
        .uid('progress')
        .transform('counting', () => new Counting())
        .uid('counting')
        .sinkTo(FileSink.jsonLines(fresh('out'), { deliveryGuarantee: DeliveryGuarantee.EXACTLY_ONCE }))
        .uid('sink');
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    env.enableCheckpointing(1_000_000, { storage: fresh('chk') });
    const progress = new Progress(1);
    build(env, progress);
    const client = await env.executeAsync('per-subtask');
    await progress.reached;
    const savepoint = await client.triggerSavepoint(fresh('savepoints'));
    await client.cancel();
    const env3 = StreamExecutionEnvironment.create({ parallelism: 3 });
    build(env3);
    await assert.rejects(env3.execute('per-subtask', { savepointPath: savepoint }), (e: Error) => {
      assert.ok(e instanceof ConfigurationError);
      assert.equal(
        e.message,
        "Operator 'counting' (uid 'counting') cannot be restored at parallelism 3 from a snapshot taken at parallelism 2: its operator state is kept per subtask and cannot be reassigned exactly; restore it at parallelism 2",
      );
      return true;
    });
  });

  it('completes a savepoint of a file source with keyed state downstream within a few batches, not at the end', async () => {
    const dir = fresh('eight-files');
    mkdirSync(dir);
    for (let f = 0; f < 8; f++) {
      let text = '';
      for (let i = 0; i < 5_000; i++) text += `{"id":${f * 5_000 + i},"key":${i % 50},"ts":${i}}\n`;
      writeFileSync(join(dir, `part-${f}.jsonl`), text);
    }
    let seen = 0;
    const progress = new Progress(1_000);
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    env.enableCheckpointing(1_000_000, { storage: fresh('chk') });
    env
      .fromSource(FileSource.jsonLines<Ev>(dir), undefined, 'files')
      .map((e) => {
        seen++;
        progress.record();
        return e;
      })
      .keyBy((e) => e.key)
      .process(sumAtEnd(), 'sums')
      .sinkTo(FileSink.jsonLines(fresh('out'), { deliveryGuarantee: DeliveryGuarantee.EXACTLY_ONCE }));
    const client = await env.executeAsync('eight-files');
    await progress.reached;
    await client.triggerSavepoint(fresh('savepoints'));
    const atSavepoint = seen;
    await client.result;
    // The sources read 1,000 records per batch; the savepoint waits for one batch boundary per source and a
    // synchronous write of its few key groups, so it is durable long before the 40,000 records are through.
    assert.ok(atSavepoint <= 10_000, `the savepoint completed after ${atSavepoint} of 40,000 records`);
    assert.equal(seen, 40_000);
  });

  it('rejects a savepoint with state for an operator the job lacks, naming it, unless allowed', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const progress = new Progress(1_000);
    buildJob(env, fresh('out'), 100_000, { rate: 20_000, progress });
    const client = await env.executeAsync('for-savepoint');
    await progress.reached;
    const path = await client.triggerSavepoint(fresh('savepoints'));
    await client.cancel();
    const other = StreamExecutionEnvironment.create();
    other
      .fromElements(1, 2)
      .map((x) => x)
      .uid('other')
      .sinkTo(FileSink.jsonLines(fresh('out'), { deliveryGuarantee: DeliveryGuarantee.EXACTLY_ONCE }));
    await assert.rejects(
      other.execute('mismatch', { savepointPath: path }),
      (e: Error) => e instanceof ConfigurationError && /'sums'/.test(e.message),
    );
    other
      .fromElements(1, 2)
      .map((x) => x)
      .uid('other')
      .sinkTo(FileSink.jsonLines(fresh('out'), { deliveryGuarantee: DeliveryGuarantee.EXACTLY_ONCE }));
    await other.execute('allowed', { savepointPath: path, allowNonRestoredState: true });
  });

  it('falls back to the previous checkpoint when the latest is corrupt or truncated, with a log line', async () => {
    const storage = fresh('chk');
    await runUntilCheckpoints(StreamExecutionEnvironment.create({ parallelism: 2 }), storage, 3);
    const ids = readdirSync(storage)
      .filter((d) => d.startsWith('chk-'))
      .map((d) => Number(d.slice(4)))
      .sort((a, b) => b - a);
    assert.ok(ids.length >= 3, `only ${ids.length} checkpoints retained`);
    const [newest, second, third] = ids as [number, number, number];
    const metadata = join(storage, `chk-${newest}`, '_metadata');
    const bytes = readFileSync(metadata);
    bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0xff;
    writeFileSync(metadata, bytes);
    truncateSync(join(storage, `chk-${second}`, '_metadata'), 30);
    const logger = new RecordingLogger();
    const loaded = loadLatestCheckpoint(storage, logger);
    const logs = logger.messages;
    assert.equal(loaded?.metadata.checkpointId, third);
    assert.match(
      logs[0]!,
      new RegExp(`checkpoint chk-${newest} is unusable \\(.*checksum mismatch\\); falling back`),
    );
    assert.match(logs[1]!, new RegExp(`checkpoint chk-${second} is unusable \\(.*(truncated|magic)`));
  });

  it('detects one flipped byte in a data file of unchanged length by its checksum, and falls back', async () => {
    const storage = fresh('chk');
    await runUntilCheckpoints(StreamExecutionEnvironment.create({ parallelism: 2 }), storage, 2);
    const ids = readdirSync(storage)
      .filter((d) => d.startsWith('chk-'))
      .map((d) => Number(d.slice(4)))
      .sort((a, b) => b - a);
    assert.ok(ids.length >= 2, `only ${ids.length} checkpoints retained`);
    const [newest, second] = ids as [number, number];
    const newestDir = join(storage, `chk-${newest}`);
    const dataFiles = Object.keys(loadSnapshotDirectory(newestDir).metadata.dataFiles);
    // Data files live in the storage's shared directory; the one named after the newest checkpoint is referenced
    // by no older checkpoint, so damaging it leaves the previous checkpoint intact.
    const own = dataFiles.find((f) => f.endsWith(`data-${newest}.bin`));
    assert.ok(own !== undefined, `chk-${newest} wrote no data file of its own: ${dataFiles.join(', ')}`);
    const path = resolve(newestDir, own);
    const bytes = readFileSync(path);
    const at = bytes.length >> 1;
    bytes[at] = bytes[at]! ^ 0x01;
    writeFileSync(path, bytes);
    assert.equal(readFileSync(path).length, bytes.length);
    assert.throws(
      () => loadSnapshotDirectory(newestDir),
      (e: Error) =>
        e instanceof CorruptCheckpointError && e.message.endsWith(`data file ${own} fails its checksum`),
    );
    const logger = new RecordingLogger();
    const loaded = loadLatestCheckpoint(storage, logger);
    const logs = logger.messages;
    assert.equal(loaded?.metadata.checkpointId, second);
    assert.deepEqual(logs, [
      `checkpoint chk-${newest} is unusable (data file ${own} fails its checksum); falling back to an earlier checkpoint`,
    ]);
  });

  it('checkpoints LMDB state incrementally and restores it', async () => {
    const storage = fresh('chk');
    const out = fresh('out');
    const events: CheckpointEvent[] = [];
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    env.setStateBackend(new LmdbStateBackend({ path: fresh('lmdb') }));
    env.enableCheckpointing(20, { storage, listener: (e) => events.push(e) });
    env.setRestartStrategy(RestartStrategies.fixedDelay(1, 0));
    buildJob(env, out, 5_000, { rate: 20_000, failAt: { id: 3_000, armed: true } });
    const original = console.warn;
    console.warn = () => {};
    try {
      await env.execute('lmdb');
    } finally {
      console.warn = original;
    }
    assert.ok(events.filter((e) => e.type === 'completed').length >= 2);
    assert.deepEqual(committed(out), expectedSums(5_000, 7));
  });
});
