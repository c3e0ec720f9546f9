// WatermarkValve: the combined watermark over input channels, with idle channels left out (Flink's StatusWatermarkValveTest).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WatermarkValve } from './watermark-valve.ts';

describe('WatermarkValve', () => {
  it('emits the minimum over active channels, and only when it advances', () => {
    const valve = new WatermarkValve(2);
    assert.equal(valve.inputWatermark(0, 100), undefined, 'channel 1 has no watermark yet');
    assert.equal(valve.inputWatermark(1, 50), 50);
    assert.equal(valve.inputWatermark(1, 40), undefined, 'a channel watermark never goes back');
    assert.equal(valve.inputWatermark(1, 80), 80);
    assert.equal(valve.inputWatermark(0, 120), undefined, 'channel 1 still holds it at 80');
    assert.equal(valve.current, 80);
  });

  it('advances at once to the other channel watermark when the channel holding it back goes idle', () => {
    const valve = new WatermarkValve(2);
    assert.equal(valve.inputWatermark(0, 100), undefined);
    assert.deepEqual(valve.inputStatus(1, true), [undefined, 100]);
    assert.equal(valve.current, 100);
  });

  it('reports idle only when every channel is idle, and active again with the first active channel', () => {
    const valve = new WatermarkValve(2);
    valve.inputWatermark(0, 10);
    valve.inputWatermark(1, 20);
    assert.deepEqual(valve.inputStatus(0, true), [undefined, 20]);
    assert.deepEqual(valve.inputStatus(0, true), [undefined, undefined], 'no change, no report');
    assert.deepEqual(valve.inputStatus(1, true), [true, undefined]);
    assert.deepEqual(valve.inputStatus(1, false), [false, undefined]);
    assert.equal(valve.inputWatermark(1, 30), 30);
    // An idle channel's watermark is recorded but does not count until it is active again.
    assert.equal(valve.inputWatermark(0, 25), undefined);
    assert.deepEqual(valve.inputStatus(0, false), [undefined, undefined], 'min(25, 30) is behind 30');
    assert.equal(valve.inputWatermark(1, 40), undefined);
    assert.equal(valve.inputWatermark(0, 50), 40);
  });
});
