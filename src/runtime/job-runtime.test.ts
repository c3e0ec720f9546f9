// JobRuntime, driven directly: per-operator figures, snapshots and the checks of a restore, what each subtask waits
// for, and the stall a blocked channel with no barrier coming causes.
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { performance } from 'node:perf_hooks';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import {
  CollectSink,
  ConfigurationError,
  DescriptiveStatisticsHistogram,
  MeterView,
  JobExecutionError,
  JobStalledError,
  ManualClock,
  StreamExecutionEnvironment,
} from '../index.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import { JobRuntime, type JobRuntimeOptions } from './job-runtime.ts';
import type { JobSnapshot } from './job-snapshot.ts';
import type { Subtask } from './subtask.ts';
import { ThreadExchange } from './thread-exchange.ts';
import { waitTurns } from '../../test/support/wait-for.ts';
import { GAUGE_MAX_STALE_MS } from '../metrics/gauge-read-budget.ts';
import { MetricRegistry } from '../metrics/metric-registry.ts';
import { HeapStateBackend } from '../state/state-backend.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from '../operators/stream-operator.ts';
import { MAX_WATERMARK } from '../core/time-domain.ts';
import { DEFAULT_PARTIAL_MATCH_QUERY } from '../cep/operator/partial-match-snapshot.ts';

const barrier = (id: number): CheckpointBarrier => ({ id, timestamp: 0, kind: 'checkpoint' });

/** Elements (1) → rebalance → Map (2) → hash → Keyed Reduce (2) → forward → Sink (2). */
function job(
  elements: number[],
  snapshot?: JobSnapshot,
  allowNonRestoredState?: boolean,
  options: Partial<JobRuntimeOptions> = {},
) {
  const env = StreamExecutionEnvironment.create({ parallelism: 2 });
  const sink = new CollectSink<number>();
  env
    .fromElements(...elements)
    .uid('src')
    .map((x: number) => x * 2)
    .uid('m')
    .keyBy((x: number) => x % 4)
    .reduce((a: number, b: number) => a + b)
    .uid('sum')
    .sinkTo(sink);
  const graph = env.buildGraph();
  const runtime = new JobRuntime(graph, {
    clock: new ManualClock(),
    ...(snapshot !== undefined ? { restoreFrom: snapshot } : {}),
    ...(allowNonRestoredState !== undefined ? { allowNonRestoredState } : {}),
    ...options,
  });
  const nodes = graph.nodes;
  const of = (name: string): Subtask[] => runtime.subtasksOf(nodes.find((n) => n.name === name)!);
  return { runtime, sink, of };
}

async function run(runtime: JobRuntime): Promise<void> {
  await runtime.open();
  await runtime.runSources();
  await runtime.close();
}

const emptyOperator = { parallelism: 1, keyedState: [], timers: [], operatorState: [undefined] };

describe('JobRuntime', () => {
  it('counts records in and out per operator over its subtasks', async () => {
    const { runtime, sink } = job([1, 2, 3]);
    await run(runtime);
    assert.deepEqual(sink.values.sort(), [2, 4, 8]);
    assert.deepEqual(
      runtime.metrics().map((m) => [m.name, m.parallelism, m.recordsIn, m.recordsOut, m.alignments]),
      [
        ['Elements', 1, 0, 3, 0],
        ['Map', 2, 3, 3, 0],
        ['Keyed Reduce', 2, 3, 3, 0],
        ['Sink', 2, 3, 0, 0],
      ],
    );
    // Only CEP operators hold partial matches.
    assert.deepEqual(await runtime.partialMatches(runtime.graph.nodes[2]!, DEFAULT_PARTIAL_MATCH_QUERY), []);
  });

  it("extracts each record's key once, at the hash exchange, and hands it to the keyed operator", async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const sink = new CollectSink<number>();
    let calls = 0;
    env
      .fromElements(1, 2, 3, 4, 5, 6)
      .keyBy((x: number) => (calls++, x % 3))
      .reduce((a: number, b: number) => a + b)
      .sinkTo(sink);
    await run(new JobRuntime(env.buildGraph(), { clock: new ManualClock() }));
    assert.deepEqual(
      sink.values.sort((a, b) => a - b),
      [1, 2, 3, 5, 7, 9],
    );
    assert.equal(calls, 6);
  });

  it('counts the alignments of an operator with several channels and their peak buffers', async () => {
    const { runtime, of } = job([1, 2, 3]);
    await runtime.open();
    const [reduce] = of('Keyed Reduce');
    reduce!.channels[0]!.barrier(barrier(1));
    reduce!.channels[0]!.process(7, 0);
    reduce!.channels[1]!.barrier(barrier(1));
    const figures = runtime.metrics().find((m) => m.name === 'Keyed Reduce')!;
    assert.equal(figures.alignments, 1);
    assert.equal(figures.peakAlignmentBufferedEvents, 1);
    assert.equal(figures.peakAlignmentBufferedBytes, 8 + 32);
    assert.equal(figures.recordsIn, 1);
    assert.ok(figures.alignmentMs >= 0 && figures.maxAlignmentMs >= 0);
  });

  it('restores keyed state from its snapshot: the sums go on from the restored ones', async () => {
    const first = job([1, 2, 3]);
    await run(first.runtime);
    const snapshot = first.runtime.snapshot();
    assert.equal(snapshot.version, 1);
    assert.deepEqual(Object.keys(snapshot.operators), ['src', 'm', 'sum', '3-Sink']);
    assert.equal(snapshot.operators.sum!.parallelism, 2);
    assert.ok(snapshot.operators.sum!.keyedState.length > 0);
    assert.deepEqual(snapshot.operators.m!.keyedState, []);
    // Only the reduce's state: the source's says that its elements were all read.
    const second = job([1, 2], { version: 1, operators: { sum: snapshot.operators.sum! } });
    await run(second.runtime);
    // The first run left key 2 at 2 + 6 = 8 and key 0 at 4; the records 2 and 4 add to them.
    assert.deepEqual(
      second.sink.values.sort((a, b) => a - b),
      [8, 10],
    );
  });

  it('refuses what is not a snapshot', () => {
    for (const bad of [{}, { version: 2, operators: {} }, { version: 1 }, null]) {
      assert.throws(
        () => job([1], bad as unknown as JobSnapshot),
        (e: unknown) =>
          e instanceof ConfigurationError &&
          e.message === 'Not a Weir job snapshot (missing version 1 marker)',
      );
    }
  });

  it('refuses state for operators the job lacks, naming them, unless allowed; empty ones are ignored', () => {
    const snapshot = (operators: Record<string, unknown>): JobSnapshot =>
      ({ version: 1, operators }) as unknown as JobSnapshot;
    const withState = snapshot({
      ghost: { ...emptyOperator, operatorState: [{ offset: 1 }] },
      gone: { ...emptyOperator, keyedState: [{ keyGroup: 0, bytes: new Uint8Array(0) }] },
      timers: { ...emptyOperator, timers: [{ keyGroup: 0, bytes: new Uint8Array(0) }] },
      empty: emptyOperator,
    });
    assert.throws(
      () => job([1], withState),
      (e: unknown) =>
        e instanceof ConfigurationError &&
        e.message ===
          "The snapshot holds state for operator uid(s) 'ghost', 'gone', 'timers' that this job does not have; set uids to match or allow non-restored state",
    );
    assert.doesNotThrow(() => job([1], withState, true));
    assert.doesNotThrow(() => job([1], snapshot({ empty: emptyOperator })));
  });

  it('refuses keyed state or timers for an operator that is not keyed', () => {
    for (const part of ['keyedState', 'timers']) {
      const snapshot = {
        version: 1,
        operators: {
          m: { ...emptyOperator, parallelism: 2, [part]: [{ keyGroup: 0, bytes: new Uint8Array(0) }] },
        },
      } as unknown as JobSnapshot;
      assert.throws(
        () => job([1], snapshot),
        (e: unknown) =>
          e instanceof ConfigurationError &&
          e.message === "Operator 'Map' (uid 'm') is not keyed, but the snapshot holds keyed state for it",
      );
    }
  });

  it('says what each unfinished subtask waits for', async () => {
    const { runtime, of } = job([1, 2, 3]);
    await runtime.open();
    assert.deepEqual(runtime.describeWaits(), [
      "'Elements' (1/1) waits for its next turn on the event loop",
      "'Map' (1/2) waits for records or end of input from channel 1 ('Elements' 1/1)",
      "'Map' (2/2) waits for records or end of input from channel 1 ('Elements' 1/1)",
      "'Keyed Reduce' (1/2) waits for records or end of input from channel 1 ('Map' 1/2), channel 2 ('Map' 2/2)",
      "'Keyed Reduce' (2/2) waits for records or end of input from channel 1 ('Map' 1/2), channel 2 ('Map' 2/2)",
      "'Sink' (1/2) waits for records or end of input from channel 1 ('Keyed Reduce' 1/2)",
      "'Sink' (2/2) waits for records or end of input from channel 1 ('Keyed Reduce' 2/2)",
    ]);
    of('Sink')[1]!.channels[0]!.endOfInput();
    of('Keyed Reduce')[1]!.channels[1]!.barrier(barrier(4));
    const waits = runtime.describeWaits();
    assert.equal(waits.length, 6, 'the finished subtask is left out');
    assert.equal(
      waits[4],
      "'Keyed Reduce' (2/2) waits for a barrier from channel 1 ('Map' 1/2) since checkpoint 4",
    );
    assert.equal(
      waits[5],
      "'Sink' (1/2) waits for records or end of input from channel 1 ('Keyed Reduce' 1/2)",
    );
  });

  it('fails with a stall naming the blocked channel when the only source is held back and no barrier can come', async () => {
    const { runtime, of } = job([1, 2, 3]);
    await runtime.open();
    // Channel 1 of the first reduce subtask delivered barrier 3 and is blocked; channel 2 would need the source,
    // which that very channel holds back.
    of('Keyed Reduce')[0]!.channels[0]!.barrier(barrier(3));
    await assert.rejects(
      runtime.runSources(),
      (e: unknown) =>
        e instanceof JobStalledError &&
        e.message.startsWith('Every source is finished or held back, yet the job is not done: ') &&
        e.waits[0] ===
          "'Elements' (1/1) is held back by blocked channel(s) channel 1 ('Map' 1/2) of 'Keyed Reduce' (1/2) for checkpoint 3" &&
        e.waits[3] ===
          "'Keyed Reduce' (1/2) waits for a barrier from channel 2 ('Map' 2/2) since checkpoint 3",
    );
  });

  it('holds a source back while an operator is at capacity, says so, and resumes it on release', async () => {
    const { runtime, sink, of } = job([1, 2, 3]);
    await runtime.open();
    const [reduce] = of('Keyed Reduce');
    runtime.setBackpressure(reduce!, true);
    runtime.setBackpressure(reduce!, true);
    const done = runtime.runSources();
    assert.equal(
      runtime.describeWaits()[0],
      "'Elements' (1/1) is held back by an asynchronous operator at capacity",
    );
    assert.deepEqual(sink.values, []);
    runtime.setBackpressure(reduce!, false);
    assert.equal(of('Elements')[0]!.isHeldBack, true, 'held twice, released once');
    runtime.setBackpressure(reduce!, false);
    await done;
    assert.deepEqual(sink.values.sort(), [2, 4, 8]);
  });
});

/** The metrics a subtask that is neither a source nor keyed registers (subtask-metrics.ts), in that order. */
const BUILT_IN = [
  'numRecordsIn',
  'numRecordsOut',
  'numRecordsInPerSecond',
  'numRecordsOutPerSecond',
  'currentInputWatermark',
  'currentOutputWatermark',
  'watermarkLag',
  'busyTimeMsPerSecond',
  'backPressuredTimeMsPerSecond',
  'idleTimeMsPerSecond',
  'checkpointAlignmentTime',
  'checkpointedStateSize',
];

describe('Subtask', () => {
  it("gives keyed operators a backend from the job's state backend and timers, and other operators neither", () => {
    const clock = new ManualClock(42);
    const created: string[] = [];
    const clocks: number[] = [];
    const heap = new HeapStateBackend();
    const { of } = job([1], undefined, undefined, {
      clock,
      checkpointing: true,
      stateBackend: {
        name: 'recording',
        createKeyedStateBackend(context) {
          created.push(
            `${context.operatorName} ${context.uid} ${context.subtaskIndex} ${context.maxParallelism} ${context.keyGroupRange.start}-${context.keyGroupRange.end}`,
          );
          clocks.push(context.clock());
          return heap.createKeyedStateBackend(context);
        },
      },
    });
    assert.deepEqual(created, ['Keyed Reduce sum 0 128 0-63', 'Keyed Reduce sum 1 128 64-127']);
    assert.deepEqual(clocks, [42, 42]);
    const [reduce] = of('Keyed Reduce');
    assert.ok(reduce!.backend !== undefined && reduce!.timers !== undefined);
    assert.equal(reduce!.context.checkpointingEnabled, true);
    const [map] = of('Map');
    assert.deepEqual([map!.backend, map!.timers], [undefined, undefined]);
    assert.throws(
      () => map!.context.getInternalTimerService('t', undefined as never, undefined as never),
      (e: unknown) =>
        e instanceof Error &&
        e.message === "Timers can only be used on a keyed stream (after keyBy); operator 'Map' is not keyed",
    );
    assert.equal(job([1]).of('Map')[0]!.context.checkpointingEnabled, false);
  });
});

describe('JobRuntime failures', () => {
  /** Elements (1) → rebalance → 'fails' (2, a custom operator failing in `where`) → Sink (2). */
  function failing(where: string, options: Partial<JobRuntimeOptions> = {}) {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const sink = new CollectSink<number>();
    class Failing extends AbstractStreamOperator<number> implements OneInputStreamOperator<number, number> {
      private fail(hook: string): void {
        if (hook === where) throw new Error(`${hook} failed`);
      }
      override open(): void {
        this.fail('open');
      }
      processElement(value: number, timestamp: number): void {
        this.output.collect(value, timestamp);
      }
      override processWatermark(watermark: number): void {
        this.fail(watermark === MAX_WATERMARK ? 'final watermark' : 'watermark');
        super.processWatermark(watermark);
      }
      override endInput(): void | Promise<void> {
        this.fail('endInput');
        if (where === 'async endInput') return Promise.reject(new Error('async endInput failed'));
      }
      override snapshotOperatorState(): unknown {
        this.fail('snapshot');
        return undefined;
      }
      override notifyCheckpointComplete(): void {
        this.fail('commit');
      }
      override close(): void {
        this.fail('close');
      }
    }
    env
      .fromElements(1, 2, 3)
      .rebalance()
      .transform('fails', () => new Failing())
      .sinkTo(sink);
    return new JobRuntime(env.buildGraph(), { clock: new ManualClock(), ...options });
  }

  it('names the subtask and what it was doing when an operator fails outside a record', async () => {
    const messages: string[] = [];
    const expectFailure = async (action: Promise<unknown>) => {
      await assert.rejects(action, (e: unknown) => {
        messages.push((e as Error).message);
        return e instanceof JobExecutionError;
      });
    };
    await expectFailure(failing('open').open());
    let runtime = failing('close');
    await run(runtime).catch(() => {});
    await expectFailure(runtime.close());
    runtime = failing('final watermark');
    await runtime.open();
    await expectFailure(runtime.runSources());
    runtime = failing('endInput');
    await runtime.open();
    await expectFailure(runtime.runSources());
    runtime = failing('async endInput');
    await runtime.open();
    await expectFailure(runtime.runSources());
    runtime = failing('commit');
    await run(runtime);
    await expectFailure(runtime.notifyCheckpointComplete(4));
    runtime = failing('snapshot', { onSubtaskSnapshot: () => {} });
    await runtime.open();
    runtime.triggerCheckpoint(barrier(6));
    await expectFailure(runtime.runSources());
    assert.deepEqual(messages, [
      "Operator 'fails' (subtask 1/2) failed while processing open(): open failed",
      "Operator 'fails' (subtask 1/2) failed while processing close(): close failed",
      "Operator 'fails' (subtask 1/2) failed while processing the final watermark: final watermark failed",
      "Operator 'fails' (subtask 1/2) failed while processing the end of input: endInput failed",
      "Operator 'fails' (subtask 1/2) failed while processing the end of input: async endInput failed",
      "Operator 'fails' (subtask 1/2) failed while processing the commit of checkpoint 4: commit failed",
      "Operator 'fails' (subtask 1/2) failed while processing the snapshot for checkpoint 6: snapshot failed",
    ]);
  });

  it('rejects runSources with the reason it was cancelled for', async () => {
    const { runtime, sink } = job([1, 2, 3]);
    await runtime.open();
    const reason = new Error('cancelled by the user');
    runtime.cancel(reason);
    await assert.rejects(runtime.runSources(), (e: unknown) => e === reason);
    assert.equal(runtime.hasFailed, true);
    assert.equal(runtime.failureCause, reason);
    assert.deepEqual(sink.values, []);
  });
});

describe('JobRuntime figures', () => {
  it('reads each subtask figures and its metrics, with their places when asked', async () => {
    const registry = new MetricRegistry();
    const jobGroup = registry.createGroup('job', { job_id: 'j', job_name: 'figures' }, ['figures']);
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const sink = new CollectSink<number>();
    env
      .fromElements(1, 2, 3)
      .process<number>({
        open(ctx) {
          const group = ctx.getMetricGroup();
          const seen = group.counter('seen');
          seen.inc(3);
          group.meter('rate', new MeterView(seen, 5));
          const sizes = group.histogram('sizes', new DescriptiveStatisticsHistogram(4));
          for (const v of [30, 10, 20]) sizes.update(v);
          group.addGroup('unit', 'celsius').gauge('constant', { getValue: () => 21 });
          group.addGroup('outer').addGroup('inner').counter('nested');
          // A user histogram whose statistics hand out their values unsorted (and the array they keep).
          const kept = [3, 1, 2];
          group.histogram('unsorted', {
            update: () => {},
            getCount: () => 3,
            getStatistics: () => ({
              getValues: () => kept,
              getQuantile: () => 0,
              size: () => 3,
              getMean: () => 2,
              getStdDev: () => 0,
              getMax: () => 3,
              getMin: () => 1,
            }),
          });
          group.gauge('broken', {
            getValue: () => {
              throw new Error('no value');
            },
          });
        },
        processElement(x, _ctx, out) {
          out.collect(x);
        },
      })
      .name('user')
      .sinkTo(sink);
    const graph = env.buildGraph();
    const runtime = new JobRuntime(graph, { clock: new ManualClock(), metrics: { registry, jobGroup } });
    // No watermark yet: no lag either.
    assert.ok(Number.isNaN(runtime.subtaskFigures(graph.nodes[1]!)[0]!.metrics.watermarkLag));
    await run(runtime);
    const [source, user] = graph.nodes;
    const [figures] = runtime.subtaskFigures(user!);
    assert.equal(figures!.index, 0);
    assert.equal(figures!.finished, true);
    assert.equal(figures!.recordsIn, 3);
    assert.equal(figures!.recordsOut, 3);
    assert.equal(figures!.currentInputWatermark, Number.POSITIVE_INFINITY);
    assert.equal(figures!.currentOutputWatermark, Number.POSITIVE_INFINITY);
    assert.equal('places' in figures!, false);
    assert.equal(figures!.metrics.seen, 3);
    assert.equal(figures!.metrics['unit.constant'], 21);
    assert.equal(figures!.metrics.numRecordsIn, 3);
    // Processing time 0 minus the final watermark; no alignment with one channel, no checkpoint.
    assert.deepEqual(
      [
        figures!.metrics.watermarkLag,
        figures!.metrics.checkpointAlignmentTime,
        figures!.metrics.checkpointedStateSize,
      ],
      [Number.NEGATIVE_INFINITY, 0, 0],
    );
    assert.equal(runtime.subtaskFigures(source!)[0]!.metrics.sourceIdle, 0);
    assert.equal('broken' in figures!.metrics, false, 'a gauge that throws is left out');
    // The subtask's own metrics and its user groups', none of another subtask's.
    assert.deepEqual(Object.keys(figures!.metrics), [
      ...BUILT_IN,
      'seen',
      'rate',
      'sizes',
      'unit.constant',
      'outer.inner.nested',
      'unsorted',
    ]);
    assert.equal(runtime.subtaskFigures(graph.nodes[2]!)[0]!.recordsIn, 3, "a sink's records in");
    assert.equal(runtime.subtaskFigures(graph.nodes[2]!)[0]!.metrics.seen, undefined);
    assert.equal(
      runtime.subtaskFigures(source!)[0]!.recordsIn,
      3,
      "a source's records in are its records out",
    );
    const all = runtime.allSubtaskFigures();
    assert.deepEqual(
      all.map((n) => n.uid),
      graph.nodes.map((n) => n.uid),
    );
    const places = all[1]!.figures[0]!.places!;
    const place = (name: string) => places.find((p) => p.name === name);
    assert.deepEqual(place('seen'), { groups: [], name: 'seen', kind: 'counter', value: 3 });
    assert.deepEqual(place('constant'), {
      groups: [['unit', 'celsius']],
      name: 'constant',
      kind: 'gauge',
      value: 21,
    });
    assert.deepEqual(place('sizes'), {
      groups: [],
      name: 'sizes',
      kind: 'histogram',
      value: 3,
      values: [10, 20, 30],
    });
    assert.deepEqual(place('nested')!.groups, [['outer'], ['inner']]);
    assert.deepEqual(place('unsorted')!.values, [1, 2, 3]);
    assert.deepEqual(
      places.map((p) => p.name),
      [...BUILT_IN, 'seen', 'rate', 'sizes', 'constant', 'nested', 'unsorted'],
    );
    assert.equal(place('rate')!.kind, 'meter');
    assert.equal(place('rate')!.count, 3);
    assert.equal(place('broken'), undefined);
    runtime.releaseMetrics();
    assert.deepEqual(runtime.subtaskFigures(user!)[0]!.metrics, {});
  });

  it("sends a costly gauge's last value in the per-tick figures until its budget allows a read, and the latest at the end", async () => {
    const registry = new MetricRegistry();
    const jobGroup = registry.createGroup('job', { job_id: 'j', job_name: 'gauges' }, ['gauges']);
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    /** What the gauges return; the costly one's read takes 40 ms of the clock the budget reads. */
    const held = { costly: 1, cheap: 1 };
    let clock = 0;
    env
      .fromElements(1)
      .process<number>({
        open(ctx) {
          const group = ctx.getMetricGroup();
          group.gauge('costly', {
            getValue: () => {
              clock += 40;
              return held.costly;
            },
          });
          group.gauge('cheap', { getValue: () => held.cheap });
        },
        processElement(x, _ctx, out) {
          out.collect(x);
        },
      })
      .name('user')
      .sinkTo(new CollectSink<number>());
    const runtime = new JobRuntime(env.buildGraph(), {
      clock: new ManualClock(),
      metrics: { registry, jobGroup },
    });
    await run(runtime);
    const user = (figures: ReturnType<JobRuntime['allSubtaskFigures']>) => figures[1]!.figures[0]!.metrics;
    mock.method(performance, 'now', () => clock);
    try {
      assert.deepEqual(
        [user(runtime.allSubtaskFigures()).costly, user(runtime.allSubtaskFigures()).cheap],
        [1, 1],
      );
      held.costly = 2;
      held.cheap = 2;
      // 40 ms read: the next one no sooner than 500 times that after its start, or GAUGE_MAX_STALE_MS after its end
      // if that is sooner. The cheap gauge is read every time.
      clock += GAUGE_MAX_STALE_MS - 1;
      assert.deepEqual(
        [user(runtime.allSubtaskFigures()).costly, user(runtime.allSubtaskFigures()).cheap],
        [1, 2],
      );
      assert.equal(user(runtime.allSubtaskFigures(true)).costly, 2, 'the last figures read every gauge');
      assert.equal(
        runtime.subtaskFigures(runtime.graph.nodes[1]!)[0]!.metrics.costly,
        2,
        'a reader asks: read now',
      );
    } finally {
      mock.restoreAll();
    }
  });

  it('reads no metrics when metrics are off', async () => {
    const { runtime } = job([1, 2, 3]);
    await run(runtime);
    const [figures] = runtime.subtaskFigures(runtime.graph.nodes[1]!);
    assert.deepEqual(figures!.metrics, {});
    assert.deepEqual(
      [figures!.recordsIn, figures!.recordsOut, figures!.finished, 'places' in figures!],
      [2, 2, true, false],
    );
  });
});

describe('JobRuntime checkpoints', () => {
  it('stops its sources after their barriers once the savepoint completed, and goes on when it failed', async () => {
    for (const completed of [true, false]) {
      const snapshots: string[] = [];
      const { runtime, sink } = job([1, 2, 3], undefined, undefined, {
        onSubtaskSnapshot: (subtask, b) => snapshots.push(`${subtask.node.name} ${subtask.index} @${b.id}`),
      });
      await runtime.open();
      runtime.triggerCheckpoint({ id: 5, timestamp: 0, kind: 'savepoint' });
      let decide: (stop: boolean) => void = () => {};
      runtime.stopSourcesAfterBarriers(new Promise<boolean>((resolve) => (decide = resolve)));
      const done = runtime.runSources();
      // The barrier went in before any record: every subtask was snapshotted, nothing emitted.
      await waitTurns('the savepoint barrier through every subtask', () => snapshots.length === 7);
      assert.deepEqual(
        runtime.describeWaits()[0],
        "'Elements' (1/1) waits for the savepoint to complete before it stops",
      );
      assert.deepEqual(sink.values, []);
      decide(completed);
      await done;
      assert.deepEqual(
        runtime.describeWaits()[0],
        completed ? "'Elements' (1/1) stopped before the end of its input" : undefined,
      );
      // Stopped: no records and no end of input. Failed: the job goes on to its end.
      assert.deepEqual(
        sink.values.sort((a, b) => a - b),
        completed ? [] : [2, 4, 8],
      );
      assert.equal(runtime.subtasksOf(runtime.graph.nodes[3]!)[0]!.isFinished, !completed);
      await runtime.close();
    }
  });

  it('queues barriers at the sources, drops an aborted one, and snapshots finished subtasks once', async () => {
    const snapshots: string[] = [];
    const { runtime, of } = job([1, 2, 3], undefined, undefined, {
      onSubtaskSnapshot: (subtask, b, snapshot) =>
        snapshots.push(
          `${subtask.node.name} ${subtask.index} @${b.id} finished ${snapshot.finished} keyed ${snapshot.keyedState.length > 0}`,
        ),
    });
    await runtime.open();
    runtime.triggerCheckpoint(barrier(1));
    runtime.triggerCheckpoint(barrier(2));
    const [source] = of('Elements');
    assert.deepEqual(
      source!.pendingBarriers.map((b) => b.id),
      [1, 2],
    );
    runtime.abortCheckpoint(1);
    assert.deepEqual(
      source!.pendingBarriers.map((b) => b.id),
      [2],
    );
    assert.equal(snapshots.length, 0);
    await runtime.runSources();
    // Checkpoint 2 went through every subtask before the first record.
    assert.equal(snapshots.length, 7);
    assert.ok(snapshots.every((line) => line.includes('@2 finished false keyed false')));
    snapshots.length = 0;
    runtime.triggerCheckpoint(barrier(3));
    assert.equal(snapshots.length, 7, 'every subtask had finished: each is snapshotted at once');
    assert.ok(
      snapshots.includes('Keyed Reduce 0 @3 finished true keyed true') ||
        snapshots.includes('Keyed Reduce 1 @3 finished true keyed true'),
    );
    assert.ok(snapshots.every((line) => line.includes('@3 finished true')));
    snapshots.length = 0;
    runtime.triggerCheckpoint(barrier(3));
    assert.deepEqual(snapshots, [], 'not twice for one checkpoint');
    await runtime.close();
  });

  it('names the subtask that declines a checkpoint whose alignment outgrew its bound', async () => {
    const declined: string[] = [];
    const { runtime, of } = job([1], undefined, undefined, {
      maxAlignmentBytes: 60,
      onCheckpointDeclined: (subtask, id, reason) => declined.push(`${subtask.index} ${id} ${reason}`),
    });
    await runtime.open();
    const reduce = of('Keyed Reduce')[1]!;
    reduce.channels[0]!.barrier(barrier(9));
    reduce.channels[0]!.process(1, 0);
    reduce.channels[0]!.process(2, 0);
    assert.deepEqual(declined, [
      "1 9 'Keyed Reduce' (2/2): blocked input channels held over 60 bytes while aligning; the alignment was given up",
    ]);
  });
});

describe('JobRuntime with a placement (two hosts on one thread)', () => {
  /**
   * The job of {@link job} split as worker mode splits it, subtask i on host i + 1, each host's share in its own
   * JobRuntime; their exchanges talk over a MessageChannel on this thread, so the runner sees the code they run.
   */
  function placed(elements: number[], batchSize = 4, credits = 4) {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const sink = new CollectSink<number>();
    env
      .fromElements(...elements)
      .map((x: number) => x * 2)
      .keyBy((x: number) => x % 4)
      .reduce((a: number, b: number) => a + b)
      .sinkTo(sink);
    const graph = env.buildGraph();
    const { port1, port2 } = new MessageChannel();
    const failures: unknown[] = [];
    const host = (id: number, port: MessagePort) => {
      const exchange = new ThreadExchange(
        graph,
        new Map([[3 - id, port]]),
        (e) => failures.push(e),
        batchSize,
        credits,
      );
      const runtime = new JobRuntime(graph, {
        clock: new ManualClock(),
        placement: { host: id, hostOf: (_node, index) => index + 1, exchange },
      });
      return { runtime, exchange };
    };
    const one = host(1, port1);
    const two = host(2, port2);
    const of = (runtime: JobRuntime, name: string): Subtask[] =>
      runtime.subtasksOf(graph.nodes.find((n) => n.name === name)!);
    return { one, two, sink, failures, of, graph };
  }

  it('runs each host its own subtasks and carries the records between them', async () => {
    const { one, two, sink, failures, of } = placed([1, 2, 3, 4, 5]);
    // The source has one subtask: host 1 runs it, host 2 runs only the second subtask of each other operator.
    assert.deepEqual(
      [of(one.runtime, 'Elements').length, of(two.runtime, 'Elements').length, of(two.runtime, 'Map').length],
      [1, 0, 1],
    );
    assert.equal(of(two.runtime, 'Map')[0]!.index, 1);
    for (const h of [one, two]) {
      await h.runtime.open();
      h.exchange.start();
    }
    const finished = { value: false };
    const both = Promise.all(
      [one, two].map((h) => h.runtime.runSources().then(() => h.runtime.whenAllFinished())),
    ).then(() => (finished.value = true));
    try {
      // A lost batch or credit leaves a host waiting: the test fails after a bounded number of turns instead.
      await waitTurns('both hosts to finish', () => finished.value || failures.length > 0);
      assert.deepEqual(failures, []);
      await both;
    } finally {
      for (const h of [one, two]) {
        h.exchange.close();
        await h.runtime.close();
      }
    }
    // Running sums per key (x * 2 % 4): key 2 gets 2, 6, 10, key 0 gets 4, 8.
    assert.deepEqual(
      sink.values.sort((a, b) => a - b),
      [2, 4, 8, 12, 18],
    );
    assert.deepEqual(failures, []);
    // Records in and out are counted on the host that runs each subtask.
    const counts = (runtime: JobRuntime) => runtime.metrics().map((m) => [m.name, m.recordsIn, m.recordsOut]);
    const [a, b] = [counts(one.runtime), counts(two.runtime)];
    assert.deepEqual(
      a.map(([name, i, o], n) => [
        name,
        (i as number) + (b[n]![1] as number),
        (o as number) + (b[n]![2] as number),
      ]),
      [
        ['Elements', 0, 5],
        ['Map', 5, 5],
        ['Keyed Reduce', 5, 5],
        ['Sink', 5, 0],
      ],
    );
  });
});
