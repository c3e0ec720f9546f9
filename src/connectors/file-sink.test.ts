// Tests of FileSink: layouts, encoding, the part file life cycle (in-progress, pending, finished) across checkpoints,
// failures and restores at both delivery guarantees, and a round trip through FileSource.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { ManualClock } from '../core/clock.ts';
import { DeliveryGuarantee } from '../core/delivery-guarantee.ts';
import { ConfigurationError } from '../core/errors.ts';
import type { SinkWriter, SinkWriterContext } from '../core/sink.ts';
import { RestartStrategies } from '../execution/restart-strategies.ts';
import { FileSink, type FileSinkOptions } from './file-sink.ts';
import { FileSource } from './file-source.ts';
import { GeneratorSource } from './generator-source.ts';
import { committedIds } from '../../test/support/committed-lines.ts';
import { freshDirs } from '../../test/support/fresh-dirs.ts';

const fresh = freshDirs('weir-file-sink-');

const EXACTLY_ONCE: FileSinkOptions = { deliveryGuarantee: DeliveryGuarantee.EXACTLY_ONCE };
const AT_LEAST_ONCE: FileSinkOptions = { deliveryGuarantee: DeliveryGuarantee.AT_LEAST_ONCE };

/** A writer as the sink operator creates it: subtask `index` of `parallelism`, restored as `restore` says. */
function writer<T>(
  sink: FileSink<T>,
  index: number,
  parallelism: number,
  checkpointing: boolean,
  restore: { checkpointId?: number; states?: unknown[] } = {},
): SinkWriter<T> {
  const context: SinkWriterContext = {
    subtaskIndex: index,
    parallelism,
    sinkName: 'files',
    checkpointingEnabled: checkpointing,
    restoredCheckpointId: restore.checkpointId,
    ...(restore.states !== undefined
      ? { restoredStates: restore.states, restoredState: restore.states[index] }
      : {}),
  };
  return sink.createWriter(context);
}

/** Every file in `path` (hidden ones too) with its text, sorted by name. */
function files(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path).sort()) out[name] = readFileSync(join(path, name), 'utf8');
  return out;
}

/** The hidden in-progress files of `path`, by subtask (their names carry the process id and a counter). */
function inProgress(path: string): string[] {
  return readdirSync(path)
    .filter((name) => name.endsWith('.inprogress'))
    .map((name) => name.replace(/-\d+-\d+\.inprogress$/, '-*.inprogress'))
    .sort();
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('FileSink.jsonLines', () => {
  it('writes one JSON line per record to a single file at parallelism 1, bigints as strings', async () => {
    const out = fresh('out');
    const path = join(out, 'single.jsonl');
    const env = StreamExecutionEnvironment.create();
    env
      .fromElements<unknown>({ a: 1 }, 'two', [3], { big: 12345678901234567890n }, undefined)
      .sinkTo(FileSink.jsonLines(path));
    await env.execute();
    assert.equal(readFileSync(path, 'utf8'), '{"a":1}\n"two"\n[3]\n{"big":"12345678901234567890"}\nnull\n');
    assert.deepEqual(readdirSync(out), ['single.jsonl'], 'no in-progress file is left behind');
  });

  it('writes a part file per subtask in a directory at parallelism 3', async () => {
    const path = fresh('parts');
    const env = StreamExecutionEnvironment.create({ parallelism: 3 });
    env
      .fromSource(
        GeneratorSource.of(10_000, (id) => ({ id })),
        undefined,
        'numbers',
      )
      .sinkTo(FileSink.jsonLines(path, { blockSize: 1_000 }));
    await env.execute();
    assert.deepEqual(readdirSync(path).sort(), ['part-0.jsonl', 'part-1.jsonl', 'part-2.jsonl']);
    assert.deepEqual(committedIds(path), range(10_000));
  });

  it('round-trips through FileSource.jsonLines', async () => {
    const path = join(fresh('round-trip'), 'out.jsonl');
    const records = Array.from({ length: 5_000 }, (_, i) => ({
      i,
      s: `text ${i} ✓`,
      nested: { ok: i % 2 === 0 },
    }));
    const env = StreamExecutionEnvironment.create();
    env.fromCollection(records).sinkTo(FileSink.jsonLines(path));
    await env.execute();
    const back = await StreamExecutionEnvironment.create()
      .fromSource(FileSource.jsonLines(path), undefined)
      .executeAndCollect();
    assert.deepEqual(back, records);
  });

  it('rejects invalid options when the job is defined', () => {
    assert.throws(() => FileSink.jsonLines(''), ConfigurationError);
    assert.throws(() => FileSink.jsonLines('x', { blockSize: 0 }), /blockSize/);
    assert.throws(
      () => FileSink.jsonLines('x', { deliveryGuarantee: DeliveryGuarantee.NONE as never }),
      (e: Error) =>
        e instanceof ConfigurationError &&
        e.message === `FileSink: deliveryGuarantee must be 'at-least-once' or 'exactly-once', got "none"`,
    );
    assert.throws(() => FileSink.jsonLines('x', { partPrefix: 'a/b' }), /partPrefix/);
    assert.equal(FileSink.jsonLines('x').deliveryGuarantee, DeliveryGuarantee.AT_LEAST_ONCE);
    assert.equal(
      FileSink.jsonLines('out', { partPrefix: 'clicks' }).partPath(2, 4),
      join('out', 'clicks-2.jsonl'),
    );
  });
});

describe('FileSink without checkpointing', () => {
  it('publishes nothing when the job fails: the in-progress file stays hidden', async () => {
    const path = join(fresh('failed'), 'out.jsonl');
    const env = StreamExecutionEnvironment.create();
    env
      .fromElements(1, 2, 3, 4, 5)
      .map((x) => {
        if (x === 4) throw new Error('injected failure at 4');
        return { id: x };
      })
      .sinkTo(FileSink.jsonLines(path, { blockSize: 1 }));
    await assert.rejects(env.execute('fails'), /injected failure at 4/);
    assert.equal(existsSync(path), false, 'a failed job published its partial file');
    assert.deepEqual(files(join(path, '..')), { '.out.jsonl.inprogress': '{"id":1}\n{"id":2}\n{"id":3}\n' });
  });

  it('after a restart from the beginning the published file holds every record once', async () => {
    const path = join(fresh('restarted'), 'out.jsonl');
    const failure = { armed: true };
    const env = StreamExecutionEnvironment.create();
    env.setRestartStrategy(RestartStrategies.fixedDelay(1, 0));
    env
      .fromElements(1, 2, 3, 4, 5)
      .map((x) => {
        if (x === 4 && failure.armed) {
          failure.armed = false;
          throw new Error('injected failure at 4');
        }
        return { id: x };
      })
      .sinkTo(FileSink.jsonLines(path, { blockSize: 1 }));
    await env.execute('restarts');
    assert.deepEqual(files(join(path, '..')), {
      'out.jsonl': '{"id":1}\n{"id":2}\n{"id":3}\n{"id":4}\n{"id":5}\n',
    });
  });

  for (const options of [AT_LEAST_ONCE, EXACTLY_ONCE]) {
    it(`${options.deliveryGuarantee}: a savepoint records the written length; a restore cuts the file back and continues it`, () => {
      const path = join(fresh('resume'), 'out.jsonl');
      const sink = FileSink.jsonLines<string>(path, { ...options, blockSize: 1 });
      const first = writer(sink, 0, 1, false);
      first.write('a', undefined);
      first.write('b', undefined);
      const state = first.snapshotState!(4);
      assert.deepEqual(state, { inProgressLength: 8 });
      first.write('c', undefined); // after the savepoint: replayed by the restored job
      void first.close!();
      assert.deepEqual(files(join(path, '..')), { '.out.jsonl.inprogress': '"a"\n"b"\n"c"\n' });

      const second = writer(sink, 0, 1, false, { checkpointId: 4, states: [state] });
      second.write('c', undefined);
      second.write('d', undefined);
      void second.endOfInput!();
      void second.close!();
      assert.deepEqual(files(join(path, '..')), { 'out.jsonl': '"a"\n"b"\n"c"\n"d"\n' });
    });
  }

  it('refuses a restore at another parallelism or from a checkpointed layout, naming the sink', () => {
    const path = fresh('refuse');
    const sink = FileSink.jsonLines<string>(path, EXACTLY_ONCE);
    assert.throws(
      () =>
        writer(sink, 0, 3, false, {
          checkpointId: 2,
          states: [{ inProgressLength: 0 }, { inProgressLength: 0 }],
        }),
      (e: Error) =>
        e instanceof ConfigurationError &&
        e.message ===
          "FileSink 'files' cannot be restored at parallelism 3 from a snapshot taken at parallelism 2 without checkpointing (one unfinished file per subtask); restore it at parallelism 2 or enable checkpointing",
    );
    assert.throws(
      () => writer(sink, 0, 1, false, { checkpointId: 2, states: [{ pending: [] }] }),
      /the snapshot was taken with checkpointing enabled \(a directory of part files per checkpoint\); enable checkpointing to restore it/,
    );
    assert.throws(
      () => writer(sink, 0, 1, true, { checkpointId: 2, states: [{ inProgressLength: 0 }] }),
      /FileSink 'files': the snapshot was taken without checkpointing \(one unfinished file per subtask\); restore it in a job without checkpointing/,
    );
  });
});

describe('FileSink with checkpointing: part file life cycle', () => {
  it('exactly once: a checkpoint rolls the in-progress file into a pending file, its completion publishes it', () => {
    const path = fresh('exactly-once');
    const sink = FileSink.jsonLines<string>(path, { ...EXACTLY_ONCE, blockSize: 1 });
    const w = writer(sink, 0, 1, true);
    w.write('a', undefined);
    w.write('b', undefined);
    assert.deepEqual(inProgress(path), ['.part-0-*.inprogress']);
    assert.deepEqual(w.snapshotState!(1), { pending: [1] });
    assert.deepEqual(files(path), { '.part-0-c1.pending': '"a"\n"b"\n' }, 'pending, not in progress');
    w.write('c', undefined);
    void w.notifyCheckpointComplete!(1);
    assert.equal(files(path)['part-0-00000001.jsonl'], '"a"\n"b"\n');
    assert.deepEqual(inProgress(path), ['.part-0-*.inprogress'], 'c stays in progress');
    void w.notifyCheckpointComplete!(1); // idempotent
    assert.deepEqual(
      Object.keys(files(path)).filter((n) => !n.endsWith('.inprogress')),
      ['part-0-00000001.jsonl'],
    );
  });

  it('a checkpoint with nothing written rolls no file; completion of a later checkpoint publishes every earlier one', () => {
    const path = fresh('several');
    const sink = FileSink.jsonLines<string>(path, EXACTLY_ONCE);
    const w = writer(sink, 0, 1, true);
    assert.deepEqual(w.snapshotState!(1), { pending: [] });
    assert.deepEqual(files(path), {});
    w.write('a', undefined);
    w.snapshotState!(2);
    w.write('b', undefined);
    assert.deepEqual(w.snapshotState!(3), { pending: [2, 3] });
    void w.notifyCheckpointComplete!(3); // the notification of 2 was lost
    assert.deepEqual(files(path), { 'part-0-00000002.jsonl': '"a"\n', 'part-0-00000003.jsonl': '"b"\n' });
  });

  it('exactly once: a restore publishes the pending files its checkpoint covers and deletes later and in-progress ones', () => {
    const path = fresh('restore');
    const sink = FileSink.jsonLines<string>(path, { ...EXACTLY_ONCE, blockSize: 1 });
    const crashed = writer(sink, 0, 1, true);
    crashed.write('a', undefined);
    crashed.snapshotState!(1);
    void crashed.notifyCheckpointComplete!(1);
    crashed.write('b', undefined);
    crashed.snapshotState!(2); // completes, but the notification never arrives
    crashed.write('c', undefined);
    crashed.snapshotState!(3); // never completes
    crashed.write('d', undefined);
    void crashed.close!();
    assert.deepEqual(Object.keys(files(path)).length, 4);

    writer(sink, 0, 1, true, { checkpointId: 2, states: [{ pending: [2, 3] }] });
    assert.deepEqual(files(path), { 'part-0-00000001.jsonl': '"a"\n', 'part-0-00000002.jsonl': '"b"\n' });
  });

  it('at least once: the barrier publishes the rolled file; a restore keeps it and deletes only in-progress files', () => {
    const path = fresh('at-least-once');
    const sink = FileSink.jsonLines<string>(path, { ...AT_LEAST_ONCE, blockSize: 1 });
    const crashed = writer(sink, 0, 1, true);
    crashed.write('a', undefined);
    crashed.snapshotState!(1);
    assert.deepEqual(files(path), { 'part-0-00000001.jsonl': '"a"\n' }, 'published at the barrier');
    crashed.write('b', undefined);
    crashed.snapshotState!(2); // never completes: the restore goes back to 1 and replays b
    crashed.write('c', undefined);
    void crashed.close!();
    assert.deepEqual(inProgress(path), ['.part-0-*.inprogress']);

    const restored = writer(sink, 0, 1, true, { checkpointId: 1, states: [{ pending: [] }] });
    assert.deepEqual(files(path), { 'part-0-00000001.jsonl': '"a"\n', 'part-0-00000002.jsonl': '"b"\n' });
    restored.write('b', undefined);
    restored.write('c', undefined);
    restored.snapshotState!(3);
    assert.deepEqual(files(path), {
      'part-0-00000001.jsonl': '"a"\n',
      'part-0-00000002.jsonl': '"b"\n',
      'part-0-00000003.jsonl': '"b"\n"c"\n',
    });
  });

  it('after a rescale down, subtask 0 recovers the files of subtasks that no longer exist; others touch only their own', () => {
    const path = fresh('rescale');
    mkdirSync(path);
    const sink = FileSink.jsonLines<string>(path, EXACTLY_ONCE);
    writeFileSync(join(path, '.part-1-c5.pending'), '"one"\n');
    writeFileSync(join(path, '.part-2-c5.pending'), '"two"\n');
    writeFileSync(join(path, '.part-2-c6.pending'), '"later"\n');
    writeFileSync(join(path, '.part-2-77-1.inprogress'), '"partial"\n');
    writeFileSync(join(path, '.other-2-c5.pending'), '"another sink"\n');
    const states = [{ pending: [] }, { pending: [5] }, { pending: [5, 6] }];
    writer(sink, 1, 2, true, { checkpointId: 5, states });
    assert.deepEqual(Object.keys(files(path)), [
      '.other-2-c5.pending',
      '.part-2-77-1.inprogress',
      '.part-2-c5.pending',
      '.part-2-c6.pending',
      'part-1-00000005.jsonl',
    ]);
    writer(sink, 0, 2, true, { checkpointId: 5, states });
    assert.deepEqual(files(path), {
      '.other-2-c5.pending': '"another sink"\n',
      'part-1-00000005.jsonl': '"one"\n',
      'part-2-00000005.jsonl': '"two"\n',
    });
  });
});

describe('FileSink with checkpointing: a job that fails and restores', () => {
  /**
   * Numbers 0..n-1 at parallelism 2, failing once at the first number >= `failAt` after a checkpoint completed;
   * 20 ms checkpoints. The source is paced on a clock that moves only when a checkpoint is triggered (one batch
   * of 100 numbers per subtask) until one completed, and then jumps to the end of time: the failure comes after a
   * checkpoint however fast or slow the machine is, and never after the input ended.
   */
  async function run(path: string, options: FileSinkOptions, n: number, failAt: number): Promise<void> {
    const failure = { armed: false, fired: false };
    const pacing = new ManualClock();
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    env.enableCheckpointing(20, {
      storage: fresh('chk'),
      listener: (e) => {
        if (failure.armed) return;
        // A source waiting for its clock takes a barrier with its next batch: let each subtask emit one more.
        if (e.type === 'triggered') pacing.advanceTo(pacing.now() + 10);
        if (e.type !== 'completed') return;
        failure.armed = true;
        pacing.advanceTo(Number.POSITIVE_INFINITY);
      },
    });
    env.setRestartStrategy(RestartStrategies.fixedDelay(1, 0));
    env
      .fromSource(
        GeneratorSource.of(n, (id) => ({ id }), { ratePerSecond: 20_000, clock: pacing }),
        undefined,
        'numbers',
      )
      .map((e) => {
        if (failure.armed && !failure.fired && e.id >= failAt) {
          failure.fired = true;
          throw new Error(`injected failure at ${e.id}`);
        }
        return e;
      })
      .sinkTo(FileSink.jsonLines(path, options));
    // The checkpoint timer does not hold the process open, and a source waiting on a manual clock has no handle.
    const keepAlive = setInterval(() => {}, 60_000);
    try {
      await env.execute('file-sink-failover');
    } finally {
      clearInterval(keepAlive);
    }
    assert.equal(failure.fired, true, 'the failure was injected');
    assert.deepEqual(inProgress(path), [], 'no in-progress file is left');
    assert.ok(
      readdirSync(path).every((name) => /^part-[01]-\d{8}\.jsonl$/.test(name)),
      `unexpected files: ${readdirSync(path).join(', ')}`,
    );
  }

  it('exactly once: every number is in the finished files once', async () => {
    const path = fresh('job-exactly-once');
    await run(path, EXACTLY_ONCE, 3_000, 1_500);
    assert.deepEqual(committedIds(path), range(3_000));
  });

  it('at least once: every number is in the finished files, none lost', async () => {
    const path = fresh('job-at-least-once');
    await run(path, AT_LEAST_ONCE, 3_000, 1_500);
    assert.deepEqual([...new Set(committedIds(path))], range(3_000));
  });
});
