// WatermarkValve: the combined watermark over input channels, with idle channels left out (Flink's StatusWatermarkValveTest).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WatermarkValve } from './watermark-valve.ts';

describe('WatermarkValve', () => {
  it('emits the minimum over active channels, and only when it advances', () => {
    const valve = new WatermarkValve(2);
    assert.equal(valve.current, Number.NEGATIVE_INFINITY);
    assert.equal(valve.inputWatermark(0, 100), undefined, 'channel 1 has no watermark yet');
    assert.equal(valve.inputWatermark(1, 50), 50);
    assert.equal(valve.inputWatermark(1, 40), undefined, 'a channel watermark never goes back');
    assert.equal(valve.inputWatermark(1, 50), undefined, 'an equal watermark is no advance');
    assert.equal(valve.inputWatermark(1, 80), 80);
    assert.equal(valve.inputWatermark(0, 120), undefined, 'channel 1 still holds it at 80');
    assert.equal(valve.current, 80);
  });

  it('keeps a channel at its highest watermark when a lower one arrives', () => {
    const valve = new WatermarkValve(2);
    valve.inputWatermark(0, 10);
    assert.equal(valve.inputWatermark(1, 20), 10);
    assert.equal(valve.inputWatermark(1, 15), undefined);
    assert.equal(valve.inputWatermark(0, 30), 20, 'channel 1 is still at 20, not 15');
  });

  it('a single channel: increasing watermarks pass, decreasing ones do not (testSingleInput*Watermarks)', () => {
    const valve = new WatermarkValve(1);
    assert.equal(valve.inputWatermark(0, 0), 0);
    assert.equal(valve.inputWatermark(0, 25), 25);
    assert.equal(valve.inputWatermark(0, 18), undefined);
    assert.equal(valve.inputWatermark(0, 42), 42);
    assert.equal(valve.current, 42);
  });

  it('a subtask without input channels still has one slot', () => {
    const valve = new WatermarkValve(0);
    assert.equal(valve.inputWatermark(0, 7), 7);
    assert.deepEqual(valve.inputStatus(0, true), [true, undefined]);
  });

  it('a single channel toggling idleness reports each toggle once (testSingleInputWatermarkStatusToggling)', () => {
    const valve = new WatermarkValve(1);
    assert.deepEqual(valve.inputStatus(0, false), [undefined, undefined], 'already active');
    assert.deepEqual(valve.inputStatus(0, true), [true, undefined]);
    assert.deepEqual(valve.inputStatus(0, true), [undefined, undefined]);
    assert.deepEqual(valve.inputStatus(0, false), [false, undefined]);
  });

  it('emits only when every channel has a watermark (testMultipleInputYieldsWatermarkOnlyWhenAllChannelsReceivesWatermarks)', () => {
    const valve = new WatermarkValve(3);
    assert.equal(valve.inputWatermark(0, 0), undefined);
    assert.equal(valve.inputWatermark(1, 0), undefined);
    assert.equal(valve.inputWatermark(2, 0), 0);
  });

  it('advances with the slowest of three channels (testMultipleInputIncreasingWatermarks)', () => {
    const valve = new WatermarkValve(3);
    valve.inputWatermark(0, 0);
    valve.inputWatermark(1, 0);
    assert.equal(valve.inputWatermark(2, 0), 0);
    assert.equal(valve.inputWatermark(0, 12), undefined);
    assert.equal(valve.inputWatermark(0, 8), undefined);
    assert.equal(valve.inputWatermark(0, 10), undefined);
    assert.equal(valve.inputWatermark(0, 15), undefined);
    assert.equal(valve.inputWatermark(1, 15), undefined);
    assert.equal(valve.inputWatermark(2, 18), 15);
    assert.equal(valve.inputWatermark(2, 20), undefined);
    assert.equal(valve.inputWatermark(0, 20), undefined);
    assert.equal(valve.inputWatermark(1, 20), 20);
  });

  it('advances at once to the other channel watermark when the channel holding it back goes idle', () => {
    const valve = new WatermarkValve(2);
    assert.equal(valve.inputWatermark(0, 100), undefined);
    assert.deepEqual(valve.inputStatus(1, true), [undefined, 100]);
    assert.equal(valve.current, 100);
  });

  it('advances as channels individually become idle (testMultipleInputWatermarkAdvancingAsChannelsIndividuallyBecomeIdle)', () => {
    const valve = new WatermarkValve(3);
    valve.inputWatermark(0, 25);
    valve.inputWatermark(1, 10);
    assert.equal(valve.inputWatermark(2, 3), 3);
    assert.deepEqual(valve.inputStatus(2, true), [undefined, 10]);
    assert.deepEqual(valve.inputStatus(1, true), [undefined, 25]);
    assert.equal(valve.current, 25);
  });

  it('flushes the highest watermark with the idle status once every channel is idle (testMultipleInputFlushMaxWatermarkAndWatermarkStatusOnceAllInputsBecomeIdle)', () => {
    const valve = new WatermarkValve(3);
    valve.inputWatermark(0, 10);
    valve.inputWatermark(1, 5);
    assert.equal(valve.inputWatermark(2, 3), 3);
    assert.deepEqual(valve.inputStatus(0, true), [undefined, undefined]);
    assert.deepEqual(valve.inputStatus(1, true), [undefined, undefined]);
    assert.deepEqual(valve.inputStatus(2, true), [true, 10]);
    assert.equal(valve.current, 10);
    // The first channel active again starts from the flushed watermark.
    assert.deepEqual(valve.inputStatus(2, false), [false, undefined]);
    assert.equal(valve.inputWatermark(2, 11), 11);
  });

  it('does not flush when the last channel to go idle was behind the emitted watermark', () => {
    const valve = new WatermarkValve(2);
    valve.inputWatermark(0, 10);
    assert.equal(valve.inputWatermark(1, 20), 10);
    assert.deepEqual(valve.inputStatus(0, true), [undefined, 20]);
    // Channel 0 comes back behind 20: it holds the watermark back but cannot move it back.
    assert.deepEqual(valve.inputStatus(0, false), [undefined, undefined]);
    assert.equal(valve.inputWatermark(1, 30), undefined);
    assert.deepEqual(valve.inputStatus(1, true), [undefined, undefined], 'channel 0 (10) is the minimum');
    assert.equal(valve.inputWatermark(0, 15), undefined);
    assert.deepEqual(valve.inputStatus(0, true), [true, undefined], 'channel 0 (15) was behind 20: no flush');
    assert.equal(valve.current, 20);
  });

  it('reports idle only when every channel is idle, and active again with the first active channel', () => {
    const valve = new WatermarkValve(2);
    valve.inputWatermark(0, 10);
    valve.inputWatermark(1, 20);
    assert.deepEqual(valve.inputStatus(0, true), [undefined, 20]);
    assert.deepEqual(valve.inputStatus(0, true), [undefined, undefined], 'no change, no report');
    assert.deepEqual(
      valve.inputStatus(1, true),
      [true, undefined],
      'channel 1 held 20, the highest: nothing to flush',
    );
    assert.deepEqual(valve.inputStatus(1, false), [false, undefined]);
    assert.equal(valve.inputWatermark(1, 30), 30);
    // An idle channel's watermark is recorded but does not count until it is active again.
    assert.equal(valve.inputWatermark(0, 25), undefined);
    assert.deepEqual(valve.inputStatus(0, false), [undefined, undefined], 'min(25, 30) is behind 30');
    assert.equal(valve.inputWatermark(1, 40), undefined);
    assert.equal(valve.inputWatermark(0, 50), 40);
  });

  it('a watermark on a channel while every channel is idle is recorded but emits nothing', () => {
    const valve = new WatermarkValve(2);
    valve.inputStatus(0, true);
    assert.deepEqual(valve.inputStatus(1, true), [true, undefined]);
    assert.equal(valve.inputWatermark(0, 5), undefined);
    assert.equal(valve.current, Number.NEGATIVE_INFINITY);
    assert.deepEqual(valve.inputStatus(0, false), [false, 5]);
  });
});
