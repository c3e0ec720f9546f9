// Subtask, its input and output, driven directly: watermarks, idleness, barriers, end of input, failures outside a
// record, backpressure counts, processing-time timers, busy time on a mocked clock, and its snapshot.
import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import { performance } from 'node:perf_hooks';
import {
  CollectSink,
  JobExecutionError,
  ManualClock,
  StreamExecutionEnvironment,
  type DataStream,
} from '../index.ts';
import { createLogger } from '../core/logger.ts';
import { MAX_WATERMARK } from '../core/time-domain.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from '../operators/stream-operator.ts';
import type { InternalTimerService } from '../time/internal-timer-service.ts';
import { voidNamespaceSerializer, type VoidNamespace } from '../state/namespace.ts';
import { HeapStateBackend } from '../state/state-backend.ts';
import type { KeyGroupRange } from '../state/key-group-range.ts';
import type { StreamNode } from '../graph/stream-graph.ts';
import { MetricRegistry } from '../metrics/metric-registry.ts';
import { BusyTimeTracker } from './busy-time-tracker.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import { InputChannel } from './input-channel.ts';
import { ForwardRouter, type ChannelWriter } from './record-router.ts';
import { Subtask, type JobServices } from './subtask.ts';
import { SubtaskInput } from './subtask-input.ts';
import { takeSubtaskSnapshot } from './subtask-state-snapshot.ts';

const barrier = (id: number, kind: 'checkpoint' | 'savepoint' = 'checkpoint'): CheckpointBarrier => ({
  id,
  timestamp: 0,
  kind,
});

/** A channel writer that writes down everything a subtask's output sends it. */
function recorder(): ChannelWriter & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    process: (value, timestamp) => void events.push(`record ${String(value)}@${timestamp}`),
    processKeyed: (value, timestamp) => void events.push(`keyed ${String(value)}@${timestamp}`),
    watermark: (watermark) => void events.push(`watermark ${watermark}`),
    status: (idle) => void events.push(`idle ${idle}`),
    endOfInput: () => void events.push('end'),
    barrier: (b) => void events.push(`barrier ${b.id}`),
  };
}

/**
 * An operator that writes down every call the subtask makes and passes records and watermarks on, and that
 * fails or answers as its options say.
 */
class Probe extends AbstractStreamOperator<unknown> implements OneInputStreamOperator<unknown, unknown> {
  readonly calls: string[] = [];
  failWatermark = false;
  failEndInput = false;
  /** What `endInput` returns (a Promise: asynchronous results still due). */
  endInputResult: void | Promise<void> = undefined;
  /** Run inside every record call (to spend time or read the key). */
  onRecord: (value: unknown) => void = () => {};
  /** Run inside every watermark call (to spend time). */
  onWatermark: () => void = () => {};
  timerService: InternalTimerService<VoidNamespace> | undefined = undefined;

  processElement(value: unknown, timestamp: number): void {
    this.calls.push(`record ${String(value)}@${timestamp}`);
    this.onRecord(value);
    this.output.collect(value, timestamp);
  }
  override processWatermark(watermark: number): void {
    this.calls.push(`watermark ${watermark}`);
    this.onWatermark();
    if (this.failWatermark) throw new Error('watermark failed');
    super.processWatermark(watermark);
  }
  override processWatermarkStatus(idle: boolean): void {
    this.calls.push(`idle ${idle}`);
    super.processWatermarkStatus(idle);
  }
  override endInput(): void | Promise<void> {
    this.calls.push('endInput');
    if (this.failEndInput) throw new Error('endInput failed');
    return this.endInputResult;
  }
  override prepareKeyedStateSnapshot(): void {
    this.calls.push('prepare');
  }
  override snapshotOperatorState(context?: { checkpointId: number; kind: string }): unknown {
    this.calls.push(`snapshot ${context?.checkpointId} ${context?.kind}`);
    return { position: 7 };
  }
}

interface Built {
  readonly node: StreamNode;
  readonly subtask: Subtask;
  readonly probe: Probe;
  readonly out: ChannelWriter & { events: string[] };
  readonly failures: unknown[];
  readonly clock: ManualClock;
  /** Input channels into the subtask, one per producer (none unless asked for). */
  readonly channels: InputChannel[];
  readonly timing: BusyTimeTracker;
}

/**
 * Subtask 0 of a 'probe' operator (keyed by `x % 10` when `keyed`) after a source, with `channels` input channels
 * and one output edge into a recorder; `services` replace the job's defaults (a manual clock, failures collected,
 * no metrics).
 */
function build(
  options: {
    keyed?: boolean;
    channels?: number;
    services?: Partial<JobServices>;
    probe?: Probe;
    keySelector?: (x: number) => unknown;
  } = {},
): Built {
  const env = StreamExecutionEnvironment.create({ parallelism: 1 });
  const probe = options.probe ?? new Probe();
  const source: DataStream<number> = env.fromElements(1);
  const keyed =
    options.keyed === true ? source.keyBy(options.keySelector ?? ((x: number) => x % 10)) : source;
  keyed.transform('probe', () => probe).sinkTo(new CollectSink());
  const node = env.buildGraph().nodes.find((n) => n.name === 'probe')!;
  const clock = new ManualClock(100);
  const failures: unknown[] = [];
  const timing = new BusyTimeTracker(false);
  const subtask = new Subtask(node, 0, {
    clock,
    fail: (e) => void failures.push(e),
    timing,
    logger: createLogger({ level: 'error' }),
    ...options.services,
  });
  const out = recorder();
  subtask.output.addMain(new ForwardRouter(out));
  const input = new SubtaskInput(
    subtask,
    probe,
    0,
    node.transformation.keySelectors[0],
    subtask.backend,
    options.services?.timing ?? timing,
  );
  subtask.inputs.push(input);
  const channels: InputChannel[] = [];
  for (let i = 0; i < (options.channels ?? 1); i++) {
    channels.push(new InputChannel(input, i, { node: node.inputs[0]!.source, index: i }));
  }
  subtask.setChannels(channels);
  return {
    node,
    subtask,
    probe,
    out,
    failures,
    clock,
    channels,
    timing: options.services?.timing ?? timing,
  };
}

/** Whether `promise` settled by the time the event loop has run the callbacks queued now. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('Subtask', () => {
  afterEach(() => mock.restoreAll());

  it('starts without channels, and aligns barriers only with more than one channel', () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    env
      .fromElements(1)
      .transform('probe', () => new Probe())
      .sinkTo(new CollectSink());
    const node = env.buildGraph().nodes.find((n) => n.name === 'probe')!;
    const fresh = new Subtask(node, 0, {
      clock: new ManualClock(),
      fail: () => {},
      timing: new BusyTimeTracker(false),
      logger: createLogger({ level: 'error' }),
    });
    assert.deepEqual(fresh.channels, []);
    assert.equal(build({ channels: 1 }).subtask.aligner, undefined);
    assert.notEqual(build({ channels: 2 }).subtask.aligner, undefined);
  });
  it('gives a keyed operator a heap backend on the job clock when the job names no state backend', () => {
    const { subtask, clock } = build({ keyed: true });
    const backend = subtask.backend as unknown as { now(): number; keyGroupRange: KeyGroupRange };
    assert.equal(backend.now(), 100);
    clock.advanceTo(250);
    assert.equal(backend.now(), 250);
    assert.deepEqual([backend.keyGroupRange.start, backend.keyGroupRange.end], [0, 127]);
  });

  it('fires processing-time timers with the key set, and fails the job naming the timer when one throws', () => {
    const probe = new Probe();
    const fired: string[] = [];
    let throwAt = -1;
    const { subtask, clock, failures } = build({ keyed: true, probe });
    probe.timerService = subtask.context.getInternalTimerService('t', voidNamespaceSerializer, {
      onEventTime: () => {},
      onProcessingTime: (timer) => {
        fired.push(`${String(timer.key)}@${timer.timestamp} key ${String(subtask.backend!.getCurrentKey())}`);
        if (timer.timestamp === throwAt) throw new Error('timer failed');
      },
    });
    subtask.backend!.setCurrentKey(3);
    probe.timerService.registerProcessingTimeTimer(0, 150);
    subtask.backend!.setCurrentKey(4);
    probe.timerService.registerProcessingTimeTimer(0, 160);
    throwAt = 160;
    clock.advanceTo(200);
    assert.deepEqual(fired, ['3@150 key 3', '4@160 key 4']);
    assert.equal(failures.length, 1);
    assert.ok(failures[0] instanceof JobExecutionError);
    assert.equal(
      (failures[0] as Error).message,
      "Operator 'probe' (subtask 1/1) failed while processing a processing-time timer: timer failed",
    );
  });

  it("fails the job from the operator's context naming the record or the activity", () => {
    const { subtask, failures } = build();
    subtask.context.failJob(new Error('lookup failed'), { value: { id: 7 }, timestamp: 12 });
    subtask.context.failJob(new Error('flush failed'), undefined, 'a flush');
    const wrapped = subtask.failure(new Error('inner'));
    subtask.context.failJob(wrapped);
    assert.deepEqual(
      failures.map((e) => (e as Error).message),
      [
        `Operator 'probe' (subtask 1/1) failed while processing record {"id":7} (timestamp 12): lookup failed`,
        "Operator 'probe' (subtask 1/1) failed while processing a flush: flush failed",
        "Operator 'probe' (subtask 1/1) failed: inner",
      ],
    );
    assert.equal(failures[2], wrapped, 'an error that names a subtask already is passed on as it is');
  });

  it("passes the operator's backpressure to the job, and ignores it when the job takes none", () => {
    const calls: string[] = [];
    const { subtask } = build({
      services: { setBackpressure: (s, blocked) => void calls.push(`${s.node.name} ${blocked}`) },
    });
    subtask.context.setBackpressure(true);
    subtask.context.setBackpressure(false);
    assert.deepEqual(calls, ['probe true', 'probe false']);
    const without = build().subtask;
    without.context.setBackpressure(true);
    without.context.setBackpressure(false);
  });

  it('resumes a source once the last blocked channel downstream is released', async () => {
    const { subtask } = build();
    assert.equal(await settled(subtask.whenDownstreamReleased()), true, 'nothing blocked: at once');
    subtask.blockedDownstream = 2;
    const released = subtask.whenDownstreamReleased();
    assert.equal(await settled(released), false);
    subtask.downstreamReleased();
    assert.equal(subtask.blockedDownstream, 1);
    assert.equal(await settled(released), false, 'one channel is still blocked');
    subtask.downstreamReleased();
    assert.equal(subtask.blockedDownstream, 0);
    assert.equal(await settled(released), true);
    subtask.downstreamReleased();
    assert.equal(subtask.blockedDownstream, -1, 'a release with nobody waiting resumes nothing');
  });

  it('holds a source while any operator holds it back, and wakes every waiter on the last release', async () => {
    const { subtask } = build();
    assert.equal(subtask.isHeldBack, false);
    assert.equal(await settled(subtask.whenReleased()), true);
    subtask.holdBack();
    subtask.holdBack();
    assert.equal(subtask.isHeldBack, true);
    const first = subtask.whenReleased();
    const second = subtask.whenReleased();
    subtask.releaseHold();
    assert.equal(subtask.isHeldBack, true);
    assert.deepEqual([await settled(first), await settled(second)], [false, false]);
    subtask.releaseHold();
    assert.equal(subtask.isHeldBack, false);
    assert.deepEqual([await settled(first), await settled(second)], [true, true]);
    subtask.releaseHold();
    assert.equal(subtask.isHeldBack, false, 'a release without a hold does not count below zero');
    subtask.holdBack();
    assert.equal(subtask.isHeldBack, true);
    const third = subtask.whenReleased();
    subtask.releaseHold();
    assert.deepEqual(
      [subtask.isHeldBack, await settled(third)],
      [false, true],
      'a second round wakes its own',
    );
  });

  it('passes the combined watermark to the operator, and names the watermark that fails it', () => {
    const { subtask, probe, out, channels } = build({ channels: 2 });
    channels[0]!.watermark(5);
    channels[1]!.watermark(3);
    channels[1]!.watermark(8);
    assert.deepEqual(probe.calls, ['watermark 3', 'watermark 5']);
    assert.deepEqual(out.events, ['watermark 3', 'watermark 5']);
    assert.equal(subtask.currentWatermark, 5);
    probe.failWatermark = true;
    assert.throws(
      () => channels[0]!.watermark(9),
      (e: unknown) =>
        e instanceof JobExecutionError &&
        e.message === "Operator 'probe' (subtask 1/1) failed while processing watermark 8: watermark failed",
    );
    assert.throws(
      () => subtask.advanceWatermark(MAX_WATERMARK),
      (e: unknown) =>
        e instanceof JobExecutionError &&
        e.message ===
          "Operator 'probe' (subtask 1/1) failed while processing the final watermark: watermark failed",
    );
  });

  it('passes idleness to the operator only when the combined status changes, with the watermark it frees', () => {
    const { probe, out, channels } = build({ channels: 2 });
    channels[0]!.watermark(4);
    channels[0]!.status(true);
    assert.deepEqual(probe.calls, [], 'the other channel is active and has no watermark yet');
    channels[1]!.watermark(2);
    channels[1]!.status(true);
    channels[1]!.status(true);
    channels[0]!.status(false);
    assert.deepEqual(probe.calls, ['watermark 2', 'watermark 4', 'idle true', 'idle false']);
    assert.deepEqual(out.events, ['watermark 2', 'watermark 4', 'idle true', 'idle false']);
  });

  it('snapshots and forwards a barrier at once on one channel, also without checkpoint hooks', () => {
    const aligned: string[] = [];
    const { out, channels } = build({
      services: { onBarrierAligned: (s, b) => void aligned.push(`${s.node.name} ${b.id}`) },
    });
    channels[0]!.barrier(barrier(3));
    assert.deepEqual(aligned, ['probe 3']);
    assert.deepEqual(out.events, ['barrier 3']);
    const bare = build();
    bare.channels[0]!.barrier(barrier(4));
    assert.deepEqual(bare.out.events, ['barrier 4']);
  });

  it('aligns a barrier over its channels, times the alignment in nanoseconds, and declines past the bound', () => {
    let now = 1_000;
    mock.method(performance, 'now', () => now);
    const aligned: number[] = [];
    const declined: string[] = [];
    const { subtask, out, channels } = build({
      channels: 2,
      services: {
        onBarrierAligned: (_s, b) => void aligned.push(b.id),
        onCheckpointDeclined: (s, id, reason) => void declined.push(`${s.node.name} ${id}: ${reason}`),
        maxAlignmentBytes: 100,
      },
    });
    assert.equal(subtask.checkpointAlignmentTime, 0);
    channels[0]!.barrier(barrier(1));
    now = 1_002.5;
    channels[1]!.barrier(barrier(1));
    assert.deepEqual(aligned, [1]);
    assert.deepEqual(out.events, ['barrier 1']);
    assert.equal(subtask.checkpointAlignmentTime, 2_500_000);
    channels[0]!.barrier(barrier(2));
    channels[0]!.process('x'.repeat(100), 1);
    assert.equal(declined.length, 1);
    assert.match(declined[0]!, /^probe 2: /);
    assert.deepEqual(out.events, ['barrier 1', `record ${'x'.repeat(100)}@1`]);
    const bare = build({ channels: 2, services: { maxAlignmentBytes: 100 } });
    bare.channels[0]!.barrier(barrier(2));
    bare.channels[0]!.process('x'.repeat(100), 1);
    assert.deepEqual(bare.out.events, [`record ${'x'.repeat(100)}@1`], 'declined without a hook');
  });

  it('drops aborted barriers queued at a source, keeping the others', () => {
    const { subtask } = build();
    subtask.pendingBarriers.push(barrier(1), barrier(2), barrier(1), barrier(3));
    subtask.abortCheckpoint(1);
    assert.deepEqual(
      subtask.pendingBarriers.map((b) => b.id),
      [2, 3],
    );
  });

  it('ends its input once every channel ended, calling endInput once', () => {
    let finished = 0;
    const { subtask, probe, out, channels } = build({
      channels: 2,
      services: { subtaskFinished: () => void finished++ },
    });
    channels[0]!.endOfInput();
    assert.equal(subtask.isFinished, false);
    assert.deepEqual(probe.calls, []);
    channels[1]!.endOfInput();
    assert.equal(subtask.isFinished, true);
    subtask.finish();
    assert.deepEqual(probe.calls, ['endInput']);
    assert.deepEqual(out.events, ['end']);
    assert.equal(finished, 1);
    const bare = build();
    bare.subtask.finish();
    assert.deepEqual(bare.out.events, ['end'], 'a job that is not told of finished subtasks');
  });

  it('names the end of input when endInput fails', () => {
    const probe = new Probe();
    probe.failEndInput = true;
    const { subtask, out } = build({ probe });
    assert.throws(
      () => subtask.finish(),
      (e: unknown) =>
        e instanceof JobExecutionError &&
        e.message ===
          "Operator 'probe' (subtask 1/1) failed while processing the end of input: endInput failed",
    );
    assert.deepEqual(out.events, []);
  });

  it('ends its output after an asynchronous endInput resolves, and hands the job what it waits for', async () => {
    const probe = new Probe();
    let resolve!: () => void;
    probe.endInputResult = new Promise<void>((r) => (resolve = r));
    const tracked: Promise<void>[] = [];
    const { subtask, out } = build({ probe, services: { trackFinish: (p) => void tracked.push(p) } });
    subtask.finish();
    assert.equal(tracked.length, 1);
    assert.deepEqual(out.events, []);
    resolve();
    await tracked[0];
    assert.deepEqual(out.events, ['end']);
  });

  it('fails the job with an asynchronous endInput failure, through the job or its tracked promise', async () => {
    const failing = () => {
      const probe = new Probe();
      probe.endInputResult = Promise.reject(new Error('flush failed'));
      return probe;
    };
    const message = "Operator 'probe' (subtask 1/1) failed while processing the end of input: flush failed";
    const untracked = build({ probe: failing() });
    untracked.subtask.finish();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      untracked.failures.map((e) => (e as Error).message),
      [message],
    );
    assert.deepEqual(untracked.out.events, []);
    const tracked: Promise<void>[] = [];
    const withTracking = build({ probe: failing(), services: { trackFinish: (p) => void tracked.push(p) } });
    withTracking.subtask.finish();
    await assert.rejects(tracked[0]!, (e: unknown) => (e as Error).message === message);
    assert.deepEqual(withTracking.failures, [], 'the job learns of it from the tracked promise');
  });

  it('restored finished: passes watermarks and end of input on without running its operator', () => {
    let finished = 0;
    const { subtask, probe, out, channels } = build({ services: { subtaskFinished: () => void finished++ } });
    assert.equal(subtask.wasRestoredFinished, false);
    subtask.markRestoredFinished();
    assert.equal(subtask.wasRestoredFinished, true);
    channels[0]!.watermark(7);
    channels[0]!.endOfInput();
    assert.deepEqual(probe.calls, []);
    assert.deepEqual(out.events, ['watermark 7', 'end']);
    assert.equal(subtask.currentWatermark, 7);
    assert.equal(finished, 1);
  });

  it('names no record and no activity where none is given', () => {
    const { subtask } = build();
    const error = subtask.failure(new Error('broken'));
    assert.deepEqual(error.location, { operator: 'probe', subtask: 0, parallelism: 1 });
    assert.equal(error.message, "Operator 'probe' (subtask 1/1) failed: broken");
  });

  it("scopes its metric group under the job's, or on its own when metrics are off", () => {
    const off = build().subtask.metricGroup;
    assert.equal(off.scope, 'operator');
    assert.deepEqual(off.getScopeComponents(), ['probe', '0']);
    assert.deepEqual(
      Object.entries(off.getAllVariables()).sort(),
      [
        ['operator_id', off.getAllVariables().operator_id!],
        ['operator_name', 'probe'],
        ['subtask_index', '0'],
      ].sort(),
    );
    const registry = new MetricRegistry();
    const jobGroup = registry.createGroup('job', { job_id: 'j1', job_name: 'figures' }, ['figures']);
    const on = build({
      services: { timing: new BusyTimeTracker(true, 0), metricScope: { registry, jobGroup } },
    }).subtask.metricGroup;
    assert.equal(on.scope, 'operator');
    assert.deepEqual(on.getScopeComponents(), ['figures', 'probe', '0']);
    assert.deepEqual(Object.keys(on.getAllVariables()).sort(), [
      'job_id',
      'job_name',
      'operator_id',
      'operator_name',
      'subtask_index',
    ]);
  });
});

describe('Subtask busy time', () => {
  afterEach(() => mock.restoreAll());
  // The trackers here sample from the first batch on (no FIRST_SAMPLE_DELAY_MS): the tests step batches by hand.

  /** A clock for `performance.now()` that moves only when the test moves it. */
  function mockNow(): { advance(ms: number): void } {
    let now = 1_000;
    mock.method(performance, 'now', () => now);
    return { advance: (ms) => void (now += ms) };
  }

  it('times nothing with metrics off', () => {
    let now = 0;
    // every read moves the clock: any timed hop would measure something
    mock.method(performance, 'now', () => (now += 1));
    const { subtask, channels, clock, probe, node } = build({ keyed: true });
    channels[0]!.process(4, 1);
    subtask.inputs[0]!.processKeyed(5, 2, 5, node.transformation.keySelectors[0]!);
    channels[0]!.watermark(3);
    probe.timerService = subtask.context.getInternalTimerService('t', voidNamespaceSerializer, {
      onEventTime: () => {},
      onProcessingTime: () => {},
    });
    subtask.backend!.setCurrentKey(4);
    probe.timerService.registerProcessingTimeTimer(0, 150);
    clock.advanceTo(200);
    const t = subtask.time;
    assert.deepEqual(
      [t.batches, t.firings].flatMap((share) => [share.sampledBusyMs, share.sampledBackPressuredMs]),
      [0, 0, 0, 0],
    );
    assert.deepEqual(probe.calls, ['record 4@1', 'record 5@2', 'watermark 3']);
  });

  it('times a watermark outside a batch as a firing root, and as a hop inside a sampled batch', () => {
    const now = mockNow();
    const timing = new BusyTimeTracker(true, 0);
    const { subtask, channels, probe } = build({ services: { timing } });
    const firings = subtask.time.firings;
    probe.onWatermark = () => now.advance(3);
    channels[0]!.watermark(5);
    assert.deepEqual([firings.sampledBusyMs, subtask.time.batches.sampledBusyMs], [3, 0], 'a sampled firing');
    assert.deepEqual([timing.active, timing.timesFiring()], [false, true], 'the root ended');
    channels[0]!.watermark(6);
    assert.equal(firings.sampledBusyMs, 3, 'within the spacing: a firing not sampled, its hops not timed');
    const start = timing.beginBatch();
    assert.ok(start < 0 && timing.active, 'a sampled batch');
    channels[0]!.watermark(7);
    assert.deepEqual(
      [firings.sampledBusyMs, subtask.time.batches.sampledBusyMs],
      [3, 3],
      'a hop of the batch',
    );
    assert.equal(timing.active, true, "the batch's sample goes on");
  });

  it('reads no clock for a watermark, or what it fires, inside a batch that is not sampled', () => {
    let reads = 0;
    let now = 1_000;
    mock.method(performance, 'now', () => (reads++, now));
    const timing = new BusyTimeTracker(true, 0);
    const { subtask, channels, probe } = build({ services: { timing } });
    // The first batch is sampled; the next one, 1 ms later, is within the spacing.
    timing.endBatch(subtask.time, timing.beginBatch());
    now += 1;
    const start = timing.beginBatch();
    assert.ok(start > 0 && !timing.active && timing.rootRunning);
    probe.onWatermark = () => (now += 3);
    const before = reads;
    channels[0]!.watermark(5);
    channels[0]!.watermark(6);
    assert.equal(reads, before, 'no clock read per watermark');
    assert.deepEqual(probe.calls, ['watermark 5', 'watermark 6']);
    timing.endBatch(subtask.time, start);
    // Its 6 ms are the batch's, split by the batch's samples; nothing is counted besides.
    assert.deepEqual([subtask.time.firings.sampledBusyMs, subtask.time.batches.sampledBusyMs], [0, 0]);
  });

  it('times a processing-time timer as a firing root, and not inside a sampled batch', () => {
    const now = mockNow();
    const timing = new BusyTimeTracker(true, 0);
    const { subtask, clock, probe } = build({ keyed: true, services: { timing } });
    probe.timerService = subtask.context.getInternalTimerService('t', voidNamespaceSerializer, {
      onEventTime: () => {},
      onProcessingTime: () => now.advance(2),
    });
    subtask.backend!.setCurrentKey(1);
    probe.timerService.registerProcessingTimeTimer(0, 150);
    probe.timerService.registerProcessingTimeTimer(0, 250);
    clock.advanceTo(200);
    const { batches, firings } = subtask.time;
    assert.deepEqual([firings.sampledBusyMs, batches.sampledBusyMs], [2, 0]);
    assert.equal(timing.active, false, 'the root ended');
    timing.beginBatch();
    clock.advanceTo(300);
    assert.deepEqual([firings.sampledBusyMs, batches.sampledBusyMs], [2, 0]);
    assert.equal(timing.active, true, "the batch's sample goes on");
  });

  it('times records only inside a sampled batch, reusing the key the exchange extracted', () => {
    const now = mockNow();
    const timing = new BusyTimeTracker(true, 0);
    let selections = 0;
    const probe = new Probe();
    const { subtask, node } = build({
      keyed: true,
      probe,
      keySelector: (x: number) => (selections++, x % 10),
      services: { timing },
    });
    const keys: unknown[] = [];
    probe.onRecord = () => {
      keys.push(subtask.backend!.getCurrentKey());
      now.advance(4);
    };
    const input = subtask.inputs[0]!;
    const selector = node.transformation.keySelectors[0]!;
    input.processKeyed(13, 1, 3, selector);
    input.process(14, 2);
    assert.deepEqual([subtask.time.batches.sampledBusyMs, selections], [0, 1]);
    timing.beginBatch();
    input.processKeyed(15, 3, 5, selector);
    assert.deepEqual([subtask.time.batches.sampledBusyMs, selections], [4, 1]);
    input.process(16, 4);
    assert.deepEqual([subtask.time.batches.sampledBusyMs, selections], [8, 2]);
    assert.deepEqual(keys, [3, 4, 5, 6]);
    assert.equal(input.recordsIn, 4);
  });

  it('names the operator, the record and its timestamp when a keyed record fails, timed or not', () => {
    const timing = new BusyTimeTracker(true, 0);
    const probe = new Probe();
    const { subtask, node } = build({ keyed: true, probe, services: { timing } });
    probe.onRecord = (value) => {
      throw new Error(`cannot take ${String(value)}`);
    };
    const input = subtask.inputs[0]!;
    const selector = node.transformation.keySelectors[0]!;
    const failure = (run: () => void): string => {
      try {
        run();
      } catch (error) {
        assert.ok(error instanceof JobExecutionError);
        return error.message;
      }
      return 'no failure';
    };
    const plain = failure(() => input.processKeyed(13, 1, 3, selector));
    timing.beginBatch();
    const timed = failure(() => input.processKeyed(15, 3, 5, selector));
    assert.deepEqual(
      [plain, timed],
      [
        "Operator 'probe' (subtask 1/1) failed while processing record 13 (timestamp 1): cannot take 13",
        "Operator 'probe' (subtask 1/1) failed while processing record 15 (timestamp 3): cannot take 15",
      ],
    );
  });

  it("keys a record by the input's own selector when the exchange used another", () => {
    const probe = new Probe();
    const { subtask } = build({ keyed: true, probe });
    const keys: unknown[] = [];
    probe.onRecord = () => keys.push(subtask.backend!.getCurrentKey());
    subtask.inputs[0]!.processKeyed(13, 1, 'elsewhere', (x: number) => `other ${x}`);
    assert.deepEqual(keys, [3]);
    assert.deepEqual(probe.calls, ['record 13@1']);
    assert.equal(subtask.inputs[0]!.recordsIn, 1);
  });
});

describe('takeSubtaskSnapshot', () => {
  it("snapshots a non-keyed subtask's operator state only, as a copy", () => {
    const { subtask, probe } = build();
    const snapshot = takeSubtaskSnapshot(subtask, barrier(5));
    assert.deepEqual(probe.calls, ['snapshot 5 checkpoint']);
    assert.deepEqual(snapshot, {
      keyedState: [],
      timers: [],
      operatorState: { position: 7 },
      finished: false,
    });
  });

  it('lets a keyed operator write its heap-kept state first, and snapshots incrementally for checkpoints only', () => {
    const heap = new HeapStateBackend();
    const incremental: number[] = [];
    const { subtask, probe } = build({
      keyed: true,
      services: {
        stateBackend: {
          name: 'incremental',
          createKeyedStateBackend(context) {
            return Object.assign(heap.createKeyedStateBackend(context), {
              snapshotIncremental(checkpointId: number) {
                incremental.push(checkpointId);
                return [{ keyGroup: 9, bytes: undefined }];
              },
              notifyCheckpointComplete() {},
            });
          },
        },
      },
    });
    const checkpoint = takeSubtaskSnapshot(subtask, barrier(5));
    assert.deepEqual(checkpoint.keyedState, [{ keyGroup: 9, bytes: undefined }]);
    const savepoint = takeSubtaskSnapshot(subtask, barrier(6, 'savepoint'));
    assert.deepEqual(savepoint.keyedState, subtask.backend!.snapshot());
    assert.deepEqual(incremental, [5]);
    assert.deepEqual(probe.calls, ['prepare', 'snapshot 5 checkpoint', 'prepare', 'snapshot 6 savepoint']);
    const plain = build({ keyed: true });
    assert.deepEqual(
      takeSubtaskSnapshot(plain.subtask, barrier(7)).keyedState,
      plain.subtask.backend!.snapshot(),
    );
    assert.deepEqual(plain.probe.calls, ['prepare', 'snapshot 7 checkpoint']);
  });
});
