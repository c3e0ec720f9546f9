// MergedWatermark: the minimum over (partition, producer) channels, with idleness, end and producers joining.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MergedWatermark } from './merged-watermark.ts';

function merge(slots: number, expected: string[]): { merged: MergedWatermark; out: string[] } {
  const out: string[] = [];
  const merged = new MergedWatermark(slots, expected, {
    emitWatermark: (w) => out.push(`W${w}`),
    markIdle: (idle) => out.push(idle ? 'idle' : 'active'),
  });
  return { merged, out };
}

describe('MergedWatermark', () => {
  it('emits the minimum over every partition of every expected producer, only when it rises', () => {
    const { merged, out } = merge(2, ['A', 'B']);
    merged.onWatermark(0, 'A', 10);
    merged.onWatermark(1, 'A', 10);
    merged.onWatermark(0, 'B', 20);
    assert.deepEqual(out, []); // B not yet heard on partition 1
    merged.onWatermark(1, 'B', 30);
    assert.deepEqual(out, ['W10']);
    merged.onWatermark(0, 'A', 25);
    assert.deepEqual(out, ['W10']); // A's partition 1 is still at 10
    merged.onWatermark(1, 'A', 25);
    assert.deepEqual(out, ['W10', 'W20']);
    merged.onWatermark(0, 'B', 15); // a lower watermark on a channel is ignored
    assert.deepEqual(out, ['W10', 'W20']);
    assert.equal(merged.current, 20);
  });

  it('leaves idle channels out; all idle makes the consumer idle; a watermark makes it active again', () => {
    const { merged, out } = merge(1, ['A', 'B']);
    merged.onWatermark(0, 'A', 10);
    merged.onWatermark(0, 'B', 5);
    merged.onIdle(0, 'B');
    merged.onIdle(0, 'A');
    merged.onWatermark(0, 'B', 7); // active again below what was emitted: nothing moves
    merged.onWatermark(0, 'B', 12);
    assert.deepEqual(out, ['W5', 'W10', 'idle', 'active', 'W12']);
  });

  it('when the last active channel goes idle holding the merged watermark, the highest of all is emitted first (Flink)', () => {
    const { merged, out } = merge(1, ['A', 'B']);
    merged.onWatermark(0, 'A', 10);
    merged.onWatermark(0, 'B', 5);
    merged.onIdle(0, 'A'); // B still active at 5: nothing moves
    merged.onIdle(0, 'B'); // B held 5: A's 10 is flushed, then the consumer is idle
    assert.deepEqual(out, ['W5', 'W10', 'idle']);
    const behind = merge(1, ['A', 'B']);
    behind.merged.onWatermark(0, 'A', 10);
    behind.merged.onWatermark(0, 'B', 20);
    behind.merged.onIdle(0, 'A');
    behind.merged.onWatermark(0, 'A', 15); // A active again below what was emitted (20)
    behind.merged.onIdle(0, 'B');
    behind.merged.onIdle(0, 'A'); // A did not hold the merged watermark: no flush
    assert.deepEqual(behind.out, ['W10', 'W20', 'idle']);
  });

  it('a producer not expected holds every partition back from its first marker until heard there', () => {
    const { merged, out } = merge(2, ['A']);
    merged.onWatermark(0, 'A', 10);
    merged.onWatermark(1, 'A', 10);
    merged.onWatermark(0, 'C', 50);
    merged.onWatermark(0, 'A', 60);
    merged.onWatermark(1, 'A', 60);
    assert.deepEqual(out, ['W10']); // C unknown on partition 1
    merged.onIdle(1, 'C');
    assert.deepEqual(out, ['W10', 'W50']);
    assert.deepEqual(merged.knownProducers, ['A', 'C']);
  });

  it('ended channels stop counting; when all ended, the final watermark', () => {
    const { merged, out } = merge(2, ['A', 'B']);
    for (const s of [0, 1]) merged.onWatermark(s, 'A', 10);
    for (const s of [0, 1]) merged.onWatermark(s, 'B', 20);
    for (const s of [0, 1]) merged.onEnd(s, 'A');
    assert.equal(merged.isEnded, false);
    merged.onIdle(0, 'B');
    merged.onEnd(0, 'B');
    merged.onEnd(1, 'B');
    assert.deepEqual(out, ['W10', 'W20', 'WInfinity']);
    assert.equal(merged.isEnded, true);
  });

  it('restores the channels a snapshot holds and emits their watermark, as a consumer resuming at a commit', () => {
    const { merged } = merge(2, ['A', 'B']);
    merged.onWatermark(0, 'A', 10);
    merged.onWatermark(1, 'A', 40);
    merged.onWatermark(0, 'B', 30);
    merged.onIdle(1, 'B');
    merged.onWatermark(0, 'C', 50); // an unexpected producer, heard on partition 0 only
    const state = merged.snapshot();
    assert.deepEqual(state, {
      producers: [
        { producer: 'A', watermarks: [10, 40], status: [1, 1] },
        { producer: 'B', watermarks: [30, -Infinity], status: [1, 2] },
        { producer: 'C', watermarks: [50, -Infinity], status: [1, 0] },
      ],
    });

    const resumed = merge(2, ['A', 'B']);
    resumed.merged.restore(state);
    assert.deepEqual(resumed.out, []); // C still holds partition 1 back, as before
    resumed.merged.onWatermark(1, 'C', 60);
    assert.deepEqual(resumed.out, ['W10']);
    assert.deepEqual(resumed.merged.knownProducers, ['A', 'B', 'C']);

    const idle = merge(1, ['A']);
    idle.merged.restore({ producers: [{ producer: 'A', watermarks: [20], status: [2] }] });
    assert.deepEqual(idle.out, ['idle']);
    const ended = merge(1, ['A']);
    ended.merged.restore({ producers: [{ producer: 'A', watermarks: [20], status: [3] }] });
    assert.deepEqual(ended.out, ['WInfinity']);
    assert.equal(ended.merged.isEnded, true);
  });
});
