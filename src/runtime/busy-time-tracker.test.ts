// BusyTimeTracker: sampled roots stay a small share of the time, ticks without a sample keep the shares, one odd
// sample is weighed with the last ticks' samples, and firings and batches from other threads are sampled and scaled
// apart from source batches.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { performance } from 'node:perf_hooks';
import {
  BusyTimeTracker,
  FIRST_SAMPLE_DELAY_MS,
  SAMPLED_TIME_SHARE,
  type SubtaskTime,
} from './busy-time-tracker.ts';

/**
 * The tracker's clock, stepped by the test: a batch's time is what the test says it is, not what a loaded machine
 * makes of a busy wait (a thread descheduled in the wrong place moved milliseconds between subtasks).
 */
let clock = 0;

/** A batch's records take `ms` of the clock. */
function spin(ms: number): void {
  clock += ms;
}

/**
 * One source batch whose records all go to `op` for `ms` (or, with `op` undefined, that spends them in the source
 * itself); returns whether the batch was sampled.
 */
function batch(
  tracker: BusyTimeTracker,
  source: SubtaskTime,
  op: SubtaskTime | undefined,
  ms: number,
): boolean {
  const started = tracker.beginBatch();
  const sampled = tracker.active;
  if (sampled && op !== undefined) {
    const outer = tracker.beginHop();
    const hopStart = performance.now();
    spin(ms);
    tracker.endHop(op, outer, hopStart);
  } else {
    spin(ms);
  }
  tracker.endBatch(source, started);
  return sampled;
}

describe('BusyTimeTracker', () => {
  beforeEach(() => {
    clock = 1_000_000; // not 0: a sampled batch is marked by its negated start time
    mock.method(performance, 'now', () => clock);
  });
  afterEach(() => mock.restoreAll());

  it('samples one of several slow batches, not every batch that outlasts the spacing', () => {
    const tracker = new BusyTimeTracker(true, 0);
    const source = tracker.track();
    const op = tracker.track();
    // A 20 ms batch outlasts the 25 ms spacing's budget: sampling it allows the next sample only after
    // 20 ms / SAMPLED_TIME_SHARE, far beyond the 80 ms the other four batches take.
    assert.ok(20 / SAMPLED_TIME_SHARE >= 500);
    const sampled = [1, 2, 3, 4, 5].map(() => batch(tracker, source, op, 20));
    assert.deepEqual(sampled, [true, false, false, false, false]);
  });

  it('applies the last sampled shares to ticks that had no sampled batch', () => {
    const tracker = new BusyTimeTracker(true, 0);
    const source = tracker.track();
    const op = tracker.track();
    tracker.sample(1_000);
    assert.equal(batch(tracker, source, op, 20), true);
    tracker.sample(2_000);
    // All of the sampled batch's time was spent in the operator, which the source waited on.
    assert.ok(op.busyTimeMsPerSecond >= 20, `op busy ${op.busyTimeMsPerSecond}`);
    assert.ok(source.backPressuredTimeMsPerSecond >= 20, `source bp ${source.backPressuredTimeMsPerSecond}`);
    assert.ok(source.busyTimeMsPerSecond < 10, `source busy ${source.busyTimeMsPerSecond}`);
    // Three more batches, none sampled: their 60 ms still count as the operator's, by its last share.
    assert.deepEqual(
      [1, 2, 3].map(() => batch(tracker, source, op, 20)),
      [false, false, false],
    );
    tracker.sample(3_000);
    assert.ok(op.busyTimeMsPerSecond >= 30, `op busy ${op.busyTimeMsPerSecond}`);
    assert.ok(source.busyTimeMsPerSecond < 10, `source busy ${source.busyTimeMsPerSecond}`);
    assert.equal(op.idleTimeMsPerSecond, 1000 - op.busyTimeMsPerSecond - op.backPressuredTimeMsPerSecond);
  });

  it('weighs a sampled batch together with the last ticks samples, so one odd batch does not set the shares', () => {
    const tracker = new BusyTimeTracker(true, 0);
    const source = tracker.track();
    const op = tracker.track();
    /** Runs 1 ms batches until one is sampled, then ends the tick. */
    const tick = (at: number, hop: SubtaskTime | undefined): void => {
      while (!batch(tracker, source, hop, 1));
      tracker.sample(at);
    };
    tracker.sample(0);
    // Four ticks in which every sampled millisecond is the operator's: the source waits on it.
    for (let i = 1; i <= 4; i++) tick(i * 1_000, op);
    const steadyOp = op.busyTimeMsPerSecond;
    assert.ok(
      source.busyTimeMsPerSecond * 10 < steadyOp,
      `source ${source.busyTimeMsPerSecond}, op ${steadyOp}`,
    );
    // Then one tick whose only sample spent its time in the source (as a pause inside the source's own code
    // would): taken alone it would make the source the busy one and the operator idle. Weighed with the four
    // earlier ticks (decayed by SHARE_DECAY each) it is about a third of the evidence.
    tick(5_000, undefined);
    assert.ok(
      source.busyTimeMsPerSecond < op.busyTimeMsPerSecond,
      `source busy ${source.busyTimeMsPerSecond}, operator busy ${op.busyTimeMsPerSecond}`,
    );
    assert.ok(source.busyTimeMsPerSecond > 0);
  });

  it('reads no clock when disabled', () => {
    const tracker = new BusyTimeTracker(false);
    const source = tracker.track();
    const reads = (performance.now as unknown as { mock: { callCount(): number } }).mock;
    const before = reads.callCount();
    assert.equal(tracker.beginBatch(), 0);
    assert.equal(tracker.active, false);
    tracker.endBatch(source, 0);
    assert.equal(tracker.timesFiring(), false);
    assert.equal(reads.callCount(), before);
  });

  it('samples no batch until FIRST_SAMPLE_DELAY_MS after the first one, then one at once', () => {
    const tracker = new BusyTimeTracker(true);
    const source = tracker.track();
    const op = tracker.track();
    assert.equal(batch(tracker, source, op, 10), false, 'the first batch');
    clock += FIRST_SAMPLE_DELAY_MS - 11;
    assert.equal(batch(tracker, source, op, 1), false, '1 ms before the delay is over');
    assert.equal(batch(tracker, source, op, 20), true, 'at the end of the delay');
    assert.equal(batch(tracker, source, op, 1), false, 'the spacing after a sample holds as before');
    tracker.sample(0);
    tracker.sample(1_000);
    // All 32 ms of batches count, scaled by the one sample's shares (all of it the operator's).
    assert.equal(op.busyTimeMsPerSecond, 32);
    assert.equal(source.busyTimeMsPerSecond, 0);
  });

  it('samples a batch that starts exactly at the spacing, not one before it', () => {
    const tracker = new BusyTimeTracker(true, 0);
    const source = tracker.track();
    assert.equal(batch(tracker, source, undefined, 0), true);
    clock += 24;
    assert.equal(batch(tracker, source, undefined, 0), false);
    clock += 1;
    assert.equal(batch(tracker, source, undefined, 0), true, 'at 25 ms after the last sample');
  });

  it('counts the wait of a source held back as back-pressured time', async () => {
    const tracker = new BusyTimeTracker(true, 0);
    const source = tracker.track();
    let release!: () => void;
    const waiting = tracker.waitBackPressured(source, new Promise<void>((resolve) => (release = resolve)));
    clock += 30;
    release();
    await waiting;
    assert.equal(source.exactBackPressuredMs, 30);
    tracker.sample(0);
    tracker.sample(1_000);
    assert.equal(source.backPressuredTimeMsPerSecond, 30);
    assert.equal(source.busyTimeMsPerSecond, 0);
    assert.equal(source.idleTimeMsPerSecond, 970);
  });

  it('reads no clock while waiting when disabled', async () => {
    const tracker = new BusyTimeTracker(false);
    const source = tracker.track();
    const waiting = tracker.waitBackPressured(source, Promise.resolve());
    clock += 30;
    await waiting;
    assert.equal(source.exactBackPressuredMs, 0);
  });

  it('allows the next sample only once the sampled batch is 2 % of the time since it began', () => {
    const tracker = new BusyTimeTracker(true, 0);
    const source = tracker.track();
    const op = tracker.track();
    // 20 ms sampled from t: the next sample may start at t + 20 / 0.02 = t + 1000.
    assert.equal(batch(tracker, source, op, 20), true);
    clock += 979;
    assert.equal(batch(tracker, source, op, 0), false);
    clock += 1;
    assert.equal(batch(tracker, source, op, 0), true);
  });

  it('times a firing outside a batch as a root: its whole time always, its hops only when sampled', () => {
    const tracker = new BusyTimeTracker(true, 0);
    const source = tracker.track();
    const op = tracker.track();
    const sink = tracker.track();
    const reads = (performance.now as unknown as { mock: { callCount(): number } }).mock;
    tracker.sample(0);
    assert.equal(tracker.timesFiring(), true);
    // A sampled firing of 8 ms: 5 in the firing operator itself, 3 in the sink its results go to.
    const start = tracker.beginFiring();
    assert.ok(start < 0 && tracker.active, 'the first firing is sampled');
    assert.equal(tracker.timesFiring(), false, 'what a root calls is part of it, not a root of its own');
    clock += 5;
    const outer = tracker.beginHop();
    const hopStart = performance.now();
    clock += 3;
    tracker.endHop(sink, outer, hopStart);
    tracker.endFiring(op, start);
    assert.equal(tracker.active, false);
    assert.deepEqual(
      [op.firings.sampledBusyMs, op.firings.sampledBackPressuredMs, sink.firings.sampledBusyMs],
      [5, 3, 3],
    );
    assert.deepEqual([op.batches.sampledBusyMs, sink.batches.sampledBusyMs], [0, 0], 'not the batches share');
    // The next firing comes within the spacing: two clock reads, whatever it fires, and no hop timed.
    const before = reads.callCount();
    const unsampled = tracker.beginFiring();
    assert.ok(unsampled > 0 && !tracker.active);
    clock += 16;
    tracker.endFiring(op, unsampled);
    assert.equal(reads.callCount() - before, 2);
    assert.equal(tracker.timesFiring(), true, 'the root ended');
    tracker.sample(1_000);
    // 24 ms of firings split by the one sample: the operator 5/8 of it busy and 3/8 back-pressured, the sink 3/8.
    assert.deepEqual(
      [op.busyTimeMsPerSecond, op.backPressuredTimeMsPerSecond, sink.busyTimeMsPerSecond],
      [15, 9, 9],
    );
    assert.deepEqual([source.busyTimeMsPerSecond, source.idleTimeMsPerSecond], [0, 1000]);
  });

  it('samples batches and firings apart, and scales each kind by its own samples', () => {
    const tracker = new BusyTimeTracker(true, 0);
    const source = tracker.track();
    const op = tracker.track();
    tracker.sample(0);
    // A sampled firing (all the operator's) does not hold back the next batch's sample, nor the reverse.
    const firing = tracker.beginFiring();
    assert.ok(firing < 0);
    clock += 2;
    tracker.endFiring(op, firing);
    assert.equal(batch(tracker, source, undefined, 10), true, 'a batch right after a sampled firing');
    const next = tracker.beginFiring();
    assert.ok(next > 0, 'the firings spacing holds');
    clock += 2;
    tracker.endFiring(op, next);
    // Two batches not sampled: 30 ms of batches, all the source's by the batch sample; 4 ms of firings, all the
    // operator's by the firing sample (one kind's shares never scale the other kind's time).
    assert.equal(batch(tracker, source, undefined, 10), false);
    assert.equal(batch(tracker, source, undefined, 10), false);
    tracker.sample(1_000);
    assert.deepEqual([source.busyTimeMsPerSecond, op.busyTimeMsPerSecond], [30, 4]);
  });

  it("times a batch from another thread as a root of its own kind: the receiver's reading and the hops it calls", () => {
    const tracker = new BusyTimeTracker(true, 0);
    const source = tracker.track();
    const receiver = tracker.track();
    const sink = tracker.track();
    tracker.sample(0);
    // A sampled delivery of 10 ms: 2 ms reading the batch (the receiving subtask's), 8 ms in the receiver's hops, of
    // which 3 ms in the sink they call. Only the receiver's hop waits for the sink: the delivery waits for nobody.
    const start = tracker.beginDelivery();
    assert.ok(start < 0 && tracker.active, 'the first delivery is sampled');
    assert.equal(tracker.timesFiring(), false, 'a watermark the batch carries is part of it');
    clock += 2;
    const outer = tracker.beginHop();
    const hopStart = performance.now();
    clock += 5;
    const inner = tracker.beginHop();
    const sinkStart = performance.now();
    clock += 3;
    tracker.endHop(sink, inner, sinkStart);
    tracker.endHop(receiver, outer, hopStart);
    tracker.endDelivery(receiver, start);
    assert.deepEqual(
      [
        receiver.deliveries.sampledBusyMs,
        receiver.deliveries.sampledBackPressuredMs,
        sink.deliveries.sampledBusyMs,
      ],
      [7, 3, 3],
    );
    assert.deepEqual(
      [receiver.batches.sampledBusyMs, receiver.firings.sampledBusyMs],
      [0, 0],
      'not the other kinds',
    );
    // A source batch right after is sampled on its own spacing, and does not scale the deliveries' time.
    assert.equal(batch(tracker, source, undefined, 10), true);
    const unsampled = tracker.beginDelivery();
    assert.ok(unsampled > 0 && !tracker.active, 'the deliveries spacing holds');
    clock += 30;
    tracker.endDelivery(receiver, unsampled);
    tracker.sample(1_000);
    // 40 ms of deliveries split by the one sample: the receiver 7/10 busy and 3/10 back-pressured, the sink 3/10.
    assert.deepEqual(
      [receiver.busyTimeMsPerSecond, receiver.backPressuredTimeMsPerSecond, sink.busyTimeMsPerSecond],
      [28, 12, 12],
    );
    assert.deepEqual([source.busyTimeMsPerSecond, receiver.idleTimeMsPerSecond], [10, 1000 - 28 - 12]);
  });

  it('with metrics off, times no delivery and reads no clock', () => {
    const tracker = new BusyTimeTracker(false, 0);
    const receiver = tracker.track();
    const reads = (performance.now as unknown as { mock: { callCount(): number } }).mock;
    const before = reads.callCount();
    const start = tracker.beginDelivery();
    assert.equal(tracker.active, false);
    tracker.endDelivery(receiver, start);
    assert.equal(reads.callCount() - before, 0);
  });

  it('ignores a tick at the time of the last one', () => {
    const tracker = new BusyTimeTracker(true, 0);
    const source = tracker.track();
    tracker.sample(1_000);
    source.exactBackPressuredMs = 100;
    tracker.sample(1_000);
    assert.deepEqual([source.backPressuredTimeMsPerSecond, source.idleTimeMsPerSecond], [0, 1000]);
    tracker.sample(2_000);
    assert.deepEqual([source.backPressuredTimeMsPerSecond, source.idleTimeMsPerSecond], [100, 900]);
  });

  it('scales each subtask share of the sampled time to all batches, decaying older ticks by 3/4', () => {
    const tracker = new BusyTimeTracker(true, 0);
    const source = tracker.track();
    const op = tracker.track();
    tracker.sample(0);
    // A sampled 10 ms batch: 6 ms in the operator, 4 in the source; then two batches that are not sampled.
    const started = tracker.beginBatch();
    const outer = tracker.beginHop();
    const hopStart = performance.now();
    spin(6);
    tracker.endHop(op, outer, hopStart);
    spin(4);
    tracker.endBatch(source, started);
    assert.equal(batch(tracker, source, op, 10), false);
    assert.equal(batch(tracker, source, op, 10), false);
    op.exactBackPressuredMs = 20;
    tracker.sample(1_000);
    // 30 ms of batches over 10 sampled: scale 3.
    assert.deepEqual(
      [source.busyTimeMsPerSecond, source.backPressuredTimeMsPerSecond, source.idleTimeMsPerSecond],
      [4 * 3, 6 * 3, 1000 - 12 - 18],
    );
    assert.deepEqual(
      [op.busyTimeMsPerSecond, op.backPressuredTimeMsPerSecond, op.idleTimeMsPerSecond],
      [6 * 3, 20, 1000 - 18 - 20],
    );
    // Next tick: one sampled 10 ms batch spent in the source alone. Decayed sums: sampled 10 * 0.75 + 10 = 17.5,
    // source busy 4 * 0.75 + 10 = 13, source back-pressured 6 * 0.75 = 4.5, operator busy 6 * 0.75 = 4.5.
    clock += 2_000;
    assert.equal(batch(tracker, source, undefined, 10), true);
    tracker.sample(2_000);
    assert.deepEqual(
      [source.busyTimeMsPerSecond, source.backPressuredTimeMsPerSecond, op.busyTimeMsPerSecond],
      [Math.round((13 * 10) / 17.5), Math.round((4.5 * 10) / 17.5), Math.round((4.5 * 10) / 17.5)],
    );
  });

  it('caps busy time at the whole second and back-pressured time at what busy time leaves', () => {
    const tracker = new BusyTimeTracker(true, 0);
    const a = tracker.track();
    const b = tracker.track();
    const c = tracker.track();
    tracker.sample(0);
    // One sampled batch of 2,700 ms: 1,500 in source a itself, 1,200 in b, of which 500 in c below b.
    const started = tracker.beginBatch();
    spin(1_500);
    const outerB = tracker.beginHop();
    const startB = performance.now();
    spin(700);
    const outerC = tracker.beginHop();
    const startC = performance.now();
    spin(500);
    tracker.endHop(c, outerC, startC);
    tracker.endHop(b, outerB, startB);
    tracker.endBatch(a, started);
    a.exactBackPressuredMs = 100;
    tracker.sample(1_000);
    assert.deepEqual(
      [a.busyTimeMsPerSecond, a.backPressuredTimeMsPerSecond, a.idleTimeMsPerSecond],
      [1000, 0, 0],
    );
    assert.deepEqual(
      [b.busyTimeMsPerSecond, b.backPressuredTimeMsPerSecond, b.idleTimeMsPerSecond],
      [700, 300, 0],
    );
  });
});
