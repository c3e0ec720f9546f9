// The source and sink operators driven by hand, with a manual clock: what leaves them, in order, and what the
// reader and writer are told (splits, snapshots, checkpoints, the end of input).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../core/clock.ts';
import { IllegalStateError, JobExecutionError } from '../core/errors.ts';
import { createLogger } from '../core/logger.ts';
import { OutputTag } from '../core/output-tag.ts';
import type { Sink, SinkWriter, SinkWriterContext } from '../core/sink.ts';
import type { PollResult, Source, SourceReader } from '../core/source.ts';
import { WatermarkStrategy } from '../time/watermark-strategy.ts';
import type { WatermarkEmission } from '../time/watermark-emission.ts';
import type { Output } from './output.ts';
import { SinkOperator } from './sink-operator.ts';
import { SourceOperator } from './source-operator.ts';
import type { OperatorContext } from './stream-operator.ts';

/** What leaves an operator, in order: "r:<value>@<ts>", "s:<tag>:<value>@<ts>", "w:<wm>", "idle", "active". */
class Trace implements Output<unknown> {
  readonly events: string[] = [];
  collect(value: unknown, timestamp: number): void {
    this.events.push(`r:${String(value)}@${timestamp}`);
  }
  collectSide<X>(tag: OutputTag<X>, value: X, timestamp: number): void {
    this.events.push(`s:${tag.id}:${String(value)}@${timestamp}`);
  }
  emitWatermark(watermark: number): void {
    this.events.push(`w:${watermark}`);
  }
  emitWatermarkStatus(idle: boolean): void {
    this.events.push(idle ? 'idle' : 'active');
  }
  take(): string[] {
    return this.events.splice(0);
  }
}

/** An operator context for subtask 1 of 2 of 'op', with a manual clock; calls to the runtime land in `calls`. */
function context(clock: ManualClock, calls: string[], extra: Partial<OperatorContext> = {}): OperatorContext {
  return {
    operatorName: 'op',
    uid: 'op-uid',
    subtaskIndex: 1,
    parallelism: 2,
    maxParallelism: 128,
    clock,
    logger: createLogger({ level: 'info', stream: { write: (line: string) => calls.push(line.trimEnd()) } }),
    keyedStateBackend: undefined,
    currentWatermark: () => Number.NEGATIVE_INFINITY,
    getInternalTimerService: () => {
      throw new Error('not keyed');
    },
    metricGroup: undefined as never,
    runtimeContext: undefined as never,
    failJob: (error, record, activity) =>
      calls.push(`failJob ${(error as Error).message} ${JSON.stringify(record)} ${activity}`),
    setBackpressure: (blocked) => calls.push(`backpressure ${blocked}`),
    ...extra,
  };
}

const CLOCK_100: WatermarkEmission = { mode: 'processing-time', intervalMs: 100, everyRecords: 1_000 };
const EVERY_2: WatermarkEmission = { mode: 'deterministic', intervalMs: 100, everyRecords: 2 };

/** A source whose reader logs what it is told; `splits` makes it a source with an enumerator. */
function loggingSource(
  log: string[],
  options: { splits?: string[]; boundedness?: 'bounded' | 'unbounded'; snapshot?: string[] } = {},
): Source<string, string> {
  const reader: SourceReader<string, string> = {
    pollNext: (): PollResult => 'end',
    notifyCheckpointComplete: (id) => void log.push(`complete ${id}`),
    close: () => void log.push('close'),
  };
  if (options.splits !== undefined) {
    reader.addSplits = (splits) => void log.push(`add ${splits.join(',')}`);
    reader.snapshotState = (id) => (log.push(`snapshot ${id}`), options.snapshot ?? []);
  }
  return {
    boundedness: options.boundedness ?? 'unbounded',
    ...(options.splits !== undefined
      ? { createEnumerator: () => ({ initialSplits: () => options.splits! }) }
      : {}),
    createReader: () => reader,
  };
}

function openSource(
  source: Source<string, string>,
  strategy: WatermarkStrategy<string> | undefined,
  emission: WatermarkEmission = CLOCK_100,
  restored?: unknown,
) {
  const clock = new ManualClock(0);
  const calls: string[] = [];
  const trace = new Trace();
  const op = new SourceOperator(source, strategy, emission);
  op.setup(context(clock, calls), trace);
  if (restored !== undefined) op.restoreOperatorState(restored);
  op.open();
  return { op, clock, calls, trace };
}

describe('SourceOperator', () => {
  it('without a strategy, forwards records with the timestamp the reader gives, or none', () => {
    const { op, trace } = openSource(loggingSource([]), undefined);
    op.collect('a', 5);
    op.collect('b');
    op.collect('c', 0);
    op.collectSide(new OutputTag<string>('errors'), 'bad');
    assert.deepEqual(trace.take(), ['r:a@5', 'r:b@NaN', 'r:c@0', 's:errors:bad@NaN']);
  });

  it("with a strategy, the assigner sees the reader's timestamp; the watermark follows its record", () => {
    const seen: string[] = [];
    const strategy = WatermarkStrategy.forPunctuated<string>(
      (v, ts) => (v === 'wm' ? ts : undefined),
      (v, ts) => (seen.push(`${v}:${ts}`), v === 'wm' ? 50 : (ts ?? 7)),
    );
    const { op, trace } = openSource(loggingSource([]), strategy);
    op.collect('a', 5);
    op.collect('b');
    op.collect('wm', 40);
    assert.deepEqual(seen, ['a:5', 'b:undefined', 'wm:40']);
    assert.deepEqual(trace.take(), ['r:a@5', 'r:b@7', 'r:wm@50', 'w:50']);
  });

  it('a failing assigner or generator fails naming the source, the subtask and the record', () => {
    const assignerFails = WatermarkStrategy.forMonotonousTimestamps<string>().withTimestampAssigner(() => {
      throw new Error('no time');
    });
    const generatorFails = WatermarkStrategy.forPunctuated<string>(() => {
      throw new Error('no watermark');
    });
    for (const [strategy, reason] of [
      [assignerFails, 'no time'],
      [generatorFails, 'no watermark'],
    ] as const) {
      const { op, trace } = openSource(loggingSource([]), strategy);
      assert.throws(
        () => op.collect('x', 3),
        (e: unknown) =>
          e instanceof JobExecutionError &&
          e.message === `Operator 'op' (subtask 2/2) failed while processing record "x": ${reason}`,
      );
      // The generator runs after the record left.
      assert.deepEqual(trace.take(), reason === 'no time' ? [] : ['r:x@3']);
    }
  });

  it("the reader's own watermarks leave only when they rise; idleness passes through", () => {
    const { op, trace } = openSource(loggingSource([]), undefined);
    op.emitWatermark(10);
    op.emitWatermark(10);
    op.emitWatermark(5);
    op.emitWatermark(11);
    op.markIdle(true);
    op.markIdle(false);
    assert.deepEqual(trace.take(), ['w:10', 'w:11', 'idle', 'active']);
  });

  it('periodic watermarks on the clock until stopped; finish emits one last time', () => {
    const { op, clock, trace } = openSource(
      loggingSource([]),
      WatermarkStrategy.forBoundedOutOfOrderness<string>(10),
    );
    op.collect('a', 100);
    clock.advanceTo(100);
    assert.deepEqual(trace.take(), ['r:a@100', 'w:89']);
    op.collect('b', 200);
    op.finishWatermarks();
    assert.deepEqual(trace.take(), ['r:b@200', 'w:189']);
    op.collect('c', 300);
    clock.advanceTo(500);
    op.finishWatermarks();
    assert.deepEqual(trace.take(), ['r:c@300']);

    const stopped = openSource(loggingSource([]), WatermarkStrategy.forBoundedOutOfOrderness<string>(10));
    stopped.op.collect('a', 100);
    stopped.op.stopWatermarks();
    stopped.clock.advanceTo(1_000);
    stopped.op.finishWatermarks();
    assert.deepEqual(stopped.trace.take(), ['r:a@100']);

    const closed = openSource(loggingSource([]), WatermarkStrategy.forBoundedOutOfOrderness<string>(10));
    closed.op.collect('a', 100);
    void closed.op.close();
    closed.clock.advanceTo(1_000);
    assert.deepEqual(closed.trace.take(), ['r:a@100']);
  });

  it('a bounded source in deterministic mode does not consult the clock; an unbounded one does', () => {
    for (const boundedness of ['bounded', 'unbounded'] as const) {
      const { op, clock, trace } = openSource(
        loggingSource([], { boundedness }),
        WatermarkStrategy.forBoundedOutOfOrderness<string>(0),
        EVERY_2,
      );
      assert.equal(op.bounded, boundedness === 'bounded');
      op.collect('a', 10);
      clock.advanceTo(100);
      op.collect('b', 20);
      assert.deepEqual(
        trace.take(),
        boundedness === 'bounded' ? ['r:a@10', 'r:b@20', 'w:19'] : ['r:a@10', 'w:9', 'r:b@20', 'w:19'],
        boundedness,
      );
    }
  });

  it('from the first split on, watermarks are per split and the subtask-wide generator stops', () => {
    const { op, clock, trace } = openSource(
      loggingSource([]),
      WatermarkStrategy.forBoundedOutOfOrderness<string>(0),
    );
    op.collect('early', 1_000);
    const p0 = op.createOutputForSplit('p0');
    const p1 = op.createOutputForSplit('p1');
    p0.collect('a', 10);
    p1.collect('b', 20);
    clock.advanceTo(100);
    // The minimum over the splits, not the subtask-wide 999.
    assert.deepEqual(trace.take(), ['r:early@1000', 'r:a@10', 'r:b@20', 'w:9']);
    op.releaseOutputForSplit('p0');
    assert.deepEqual(trace.take(), ['w:19']);
    op.releaseOutputForSplit('unknown');
    p1.collect('c', 30);
    op.finishWatermarks();
    assert.deepEqual(trace.take(), ['r:c@30', 'w:29']);
  });

  it('a failing split assigner fails naming the source, the subtask and the record', () => {
    const strategy = WatermarkStrategy.forMonotonousTimestamps<string>().withTimestampAssigner(
      () => Number.NaN,
    );
    const { op } = openSource(loggingSource([]), strategy);
    const split = op.createOutputForSplit('p0');
    assert.throws(
      () => split.collect('x', 1),
      (e: unknown) =>
        e instanceof JobExecutionError &&
        e.message ===
          `Operator 'op' (subtask 2/2) failed while processing record "x": The timestamp assigner returned NaN, not a number of milliseconds`,
    );
  });

  it('snapshots the splits it is about to read before open, the reader’s after; restores by union', () => {
    const log: string[] = [];
    const source = loggingSource(log, { splits: ['s0', 's1', 's2'], snapshot: ['s1-at-7'] });
    const op = new SourceOperator(source, undefined, CLOCK_100);
    op.setup(context(new ManualClock(0), []), new Trace());
    assert.equal(op.operatorStateDistribution, 'union');
    // Subtask 1 of 2: round robin gives it s1.
    assert.deepEqual(op.snapshotOperatorState(), ['s1']);
    op.restoreOperatorState([['s0', 's2'], ['s1']]);
    assert.deepEqual(op.snapshotOperatorState(), ['s1']);
    op.restoreOperatorState([['a', 'b', 'c']]);
    assert.deepEqual(op.snapshotOperatorState(), ['b']);
    op.open();
    assert.deepEqual(op.snapshotOperatorState({ checkpointId: 3, kind: 'checkpoint' }), ['s1-at-7']);
    assert.deepEqual(op.snapshotOperatorState(), ['s1-at-7']);
    void op.notifyCheckpointComplete(3);
    void op.close();
    assert.deepEqual(log, ['add b', 'snapshot 3', 'snapshot undefined', 'complete 3', 'close']);
  });

  it('a source without splits snapshots nothing', () => {
    const op = new SourceOperator(loggingSource([]), undefined, CLOCK_100);
    op.setup(context(new ManualClock(0), []), new Trace());
    assert.equal(op.snapshotOperatorState(), undefined);
    op.open();
    assert.equal(op.snapshotOperatorState({ checkpointId: 1, kind: 'checkpoint' }), undefined);
  });
});

/** A sink whose writer logs every call; `writer` overrides its methods. */
function loggingSink(
  log: string[],
  writer: Partial<SinkWriter<string>> = {},
  redistributesState?: boolean,
): { sink: Sink<string>; contexts: SinkWriterContext[] } {
  const contexts: SinkWriterContext[] = [];
  const sink: Sink<string> = {
    ...(redistributesState !== undefined ? { redistributesState } : {}),
    createWriter: (ctx) => {
      contexts.push(ctx);
      return {
        write: (value, timestamp) => void log.push(`write ${value}@${timestamp}`),
        writeWatermark: (wm) => void log.push(`watermark ${wm}`),
        snapshotState: (id) => (log.push(`snapshot ${id}`), `state-${id}`),
        notifyCheckpointComplete: (id) => void log.push(`complete ${id}`),
        endOfInput: () => void log.push('end'),
        close: () => void log.push('close'),
        ...writer,
      };
    },
  };
  return { sink, contexts };
}

function openSink(sink: Sink<string>, extra: Partial<OperatorContext> = {}, restored?: unknown) {
  const calls: string[] = [];
  const clock = new ManualClock(0);
  const op = new SinkOperator(sink);
  op.setup(context(clock, calls, extra), new Trace() as Output<never>);
  if (restored !== undefined) op.restoreOperatorState(restored);
  op.open();
  return { op, calls, clock };
}

describe('SinkOperator', () => {
  it("tells the writer its subtask, name, checkpointing and restore, and passes on the runtime's calls", () => {
    const { sink, contexts } = loggingSink([]);
    const { calls, clock } = openSink(sink, { restoredCheckpointId: 4, checkpointingEnabled: true });
    const ctx = contexts[0]!;
    assert.equal(ctx.subtaskIndex, 1);
    assert.equal(ctx.parallelism, 2);
    assert.equal(ctx.sinkName, 'op');
    assert.equal(ctx.restoredCheckpointId, 4);
    assert.equal(ctx.checkpointingEnabled, true);
    assert.equal(ctx.restoredState, undefined);
    assert.equal(ctx.restoredStates, undefined);
    assert.equal(ctx.clock, clock);
    ctx.setBackpressure!(true);
    ctx.setBackpressure!(false);
    ctx.failJob!(new Error('broken pipe'), 'a flush');
    assert.deepEqual(calls, [
      'backpressure true',
      'backpressure false',
      'failJob broken pipe undefined a flush',
    ]);

    for (const checkpointingEnabled of [undefined, false]) {
      const other = loggingSink([]);
      openSink(other.sink, checkpointingEnabled === undefined ? {} : { checkpointingEnabled });
      assert.equal(other.contexts[0]!.checkpointingEnabled, false);
    }
  });

  it('writes records with their timestamp or none, watermarks, the end of input, snapshots and commits', async () => {
    const log: string[] = [];
    const { sink } = loggingSink(log);
    const { op } = openSink(sink);
    op.processElement('a', 5);
    op.processElement('b', Number.NaN);
    op.processWatermark(9);
    await op.endInput();
    assert.equal(op.snapshotOperatorState(), undefined);
    assert.equal(op.snapshotOperatorState({ checkpointId: 2, kind: 'checkpoint' }), 'state-2');
    await op.notifyCheckpointComplete(2);
    await op.close();
    assert.deepEqual(log, [
      'write a@5',
      'write b@undefined',
      'watermark 9',
      'end',
      'snapshot 2',
      'complete 2',
      'close',
    ]);
  });

  it('a writer without the optional methods: nothing to snapshot, no watermark, commit or close', async () => {
    const log: string[] = [];
    const op = new SinkOperator<string>({
      createWriter: () => ({ write: (v) => void log.push(v) }),
    });
    op.setup(context(new ManualClock(0), []), new Trace() as Output<never>);
    op.open();
    op.processWatermark(3);
    assert.equal(op.snapshotOperatorState({ checkpointId: 1, kind: 'checkpoint' }), undefined);
    assert.equal(await op.endInput(), undefined);
    assert.equal(await op.notifyCheckpointComplete(1), undefined);
    assert.equal(await op.close(), undefined);
    assert.deepEqual(log, []);
  });

  it('the end of input waits for an asynchronous flush', async () => {
    let flushed!: () => void;
    const flush = new Promise<void>((resolve) => (flushed = resolve));
    const { sink } = loggingSink([], { endOfInput: () => flush });
    const { op } = openSink(sink);
    assert.equal(op.endInput(), flush);
    flushed();
  });

  it('refuses an async write() when it opens, and a write that returns a Promise per record', () => {
    const { sink } = loggingSink([], { write: async () => {} });
    assert.throws(
      () => openSink(sink),
      /Operator 'op': sinkTo\(\) was given a function whose write\(\) is async/,
    );
    const promising = loggingSink([], { write: () => Promise.resolve() as never });
    const { op } = openSink(promising.sink);
    assert.throws(
      () => op.processElement('a', 1),
      (e: unknown) => e instanceof IllegalStateError && e.message.startsWith('write() returned a Promise.'),
    );
  });

  it('restores by union: every old state as restoredStates, and its own (or, redistributing, its share)', () => {
    const old = [['a'], ['b'], ['c1', 'c2']];
    const own = loggingSink([]);
    openSink(own.sink, {}, old);
    assert.deepEqual(own.contexts[0]!.restoredStates, old);
    assert.deepEqual(own.contexts[0]!.restoredState, ['b']);
    // Subtask 1 of 2 gets old subtask 1 only: one state, as it was.
    const one = loggingSink([], {}, true);
    openSink(one.sink, {}, old);
    assert.deepEqual(one.contexts[0]!.restoredState, ['b']);
    // From 4 old subtasks, subtask 1 gets 1 and 3, concatenated.
    const two = loggingSink([], {}, true);
    openSink(two.sink, {}, [['a'], ['b'], ['c'], ['d1', 'd2']]);
    assert.deepEqual(two.contexts[0]!.restoredState, ['b', 'd1', 'd2']);
    const none = loggingSink([], {}, true);
    openSink(none.sink, {}, [['a'], undefined]);
    assert.equal(none.contexts[0]!.restoredState, undefined);
    assert.equal(new SinkOperator(own.sink).operatorStateDistribution, 'union');
  });
});

describe('source and sink operators before open', () => {
  it('close, commit and snapshot calls before open do nothing', async () => {
    const source = new SourceOperator(loggingSource([]), undefined, CLOCK_100);
    source.setup(context(new ManualClock(0), []), new Trace());
    assert.equal(await source.notifyCheckpointComplete(1), undefined);
    assert.equal(await source.close(), undefined);
    const log: string[] = [];
    const sink = new SinkOperator(loggingSink(log).sink);
    sink.setup(context(new ManualClock(0), []), new Trace() as Output<never>);
    assert.equal(sink.snapshotOperatorState({ checkpointId: 1, kind: 'checkpoint' }), undefined);
    assert.equal(await sink.notifyCheckpointComplete(1), undefined);
    assert.equal(await sink.close(), undefined);
    assert.deepEqual(log, []);
  });

  it('split outputs of a source without a strategy pass records through with their timestamps', () => {
    const { op, trace } = openSource(loggingSource([]), undefined);
    const split = op.createOutputForSplit('p0');
    split.collect('a', 3);
    split.collect('b');
    op.releaseOutputForSplit('p0');
    op.finishWatermarks();
    assert.deepEqual(trace.take(), ['r:a@3', 'r:b@NaN']);
  });
});
