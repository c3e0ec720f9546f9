// Watermark generators and strategies on their own: bounds, idleness, validation and the generator a strategy builds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError } from '../core/errors.ts';
import {
  BoundedOutOfOrdernessWatermarks,
  NoWatermarksGenerator,
  WatermarksWithIdleness,
  type WatermarkGenerator,
  type WatermarkOutput,
} from './watermark-generator.ts';
import { WatermarkStrategy } from './watermark-strategy.ts';

/** A WatermarkOutput that records what it is told, in order. */
function recorder(): WatermarkOutput & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    emitWatermark: (w) => void log.push(`watermark ${w}`),
    markIdle: () => void log.push('idle'),
    markActive: () => void log.push('active'),
  };
}

describe('watermark generators', () => {
  it('bounded out-of-orderness: the largest timestamp so far, minus the bound, minus 1', () => {
    const g: WatermarkGenerator<string> = new BoundedOutOfOrdernessWatermarks<string>(10);
    const out = recorder();
    g.onPeriodicEmit(out);
    g.onEvent('a', 100, out);
    g.onEvent('b', 50, out);
    g.onPeriodicEmit(out);
    g.onEvent('c', 130, out);
    g.onPeriodicEmit(out);
    assert.deepEqual(out.log, [`watermark ${Number.NEGATIVE_INFINITY}`, 'watermark 89', 'watermark 119']);
  });

  it('rejects a negative, infinite or NaN bound, naming the value', () => {
    for (const bad of [-1, Number.POSITIVE_INFINITY, Number.NaN]) {
      assert.throws(
        () => new BoundedOutOfOrdernessWatermarks(bad),
        (e: Error) =>
          e instanceof ConfigurationError &&
          e.message === `The maximum out-of-orderness must be a finite number >= 0, got ${bad}`,
      );
    }
  });

  it('no watermarks: nothing is ever emitted', () => {
    const g = new NoWatermarksGenerator<number>();
    const out = recorder();
    g.onEvent();
    g.onPeriodicEmit();
    assert.deepEqual(out.log, []);
  });

  it('idleness: idle once the timeout passed without events (at exactly the timeout), active on the next event', () => {
    let now = 1_000;
    const inner = new BoundedOutOfOrdernessWatermarks<string>(0);
    const g = new WatermarksWithIdleness(inner, 100, () => now);
    const out = recorder();
    g.onEvent('a', 5, out);
    now = 1_099;
    g.onPeriodicEmit(out);
    now = 1_100;
    g.onPeriodicEmit(out);
    now = 1_500;
    g.onPeriodicEmit(out); // idle: neither marked again nor a watermark
    g.onEvent('b', 9, out);
    g.onPeriodicEmit(out);
    now = 1_599;
    g.onPeriodicEmit(out);
    assert.deepEqual(out.log, ['watermark 4', 'idle', 'active', 'watermark 8', 'watermark 8']);
  });

  it('idleness: an input with no event at all goes idle a timeout after the generator was created', () => {
    let now = 0;
    const g = new WatermarksWithIdleness(new NoWatermarksGenerator<string>(), 50, () => now);
    const out = recorder();
    now = 49;
    g.onPeriodicEmit(out);
    now = 50;
    g.onPeriodicEmit(out);
    assert.deepEqual(out.log, ['idle']);
  });

  it('idleness: the timeout must be positive', () => {
    const inner = new NoWatermarksGenerator<string>();
    for (const bad of [0, -5, Number.NaN]) {
      assert.throws(
        () => new WatermarksWithIdleness(inner, bad, () => 0),
        (e: Error) =>
          e instanceof ConfigurationError && e.message === `The idle timeout must be positive, got ${bad}`,
      );
    }
  });
});

describe('WatermarkStrategy', () => {
  const ctx = { now: () => 0 } as Parameters<WatermarkStrategy<number>['createWatermarkGenerator']>[0];

  it('builds the generator it names, wrapped for idleness only when asked', () => {
    const bounded = WatermarkStrategy.forBoundedOutOfOrderness<number>(5);
    assert.ok(bounded.createWatermarkGenerator(ctx) instanceof BoundedOutOfOrdernessWatermarks);
    assert.ok(
      WatermarkStrategy.noWatermarks<number>().createWatermarkGenerator(ctx) instanceof NoWatermarksGenerator,
    );
    const idle = bounded.withIdleness(10);
    assert.equal(idle.idleTimeoutMs, 10);
    assert.ok(idle.createWatermarkGenerator(ctx) instanceof WatermarksWithIdleness);
    const out = recorder();
    const monotonous = WatermarkStrategy.forMonotonousTimestamps<number>().createWatermarkGenerator(ctx);
    monotonous.onEvent(1, 40, out);
    monotonous.onPeriodicEmit(out);
    assert.deepEqual(out.log, ['watermark 39']);
  });

  it('keeps the timestamp assigner and idleness through each builder step', () => {
    const assigner = (n: number) => n * 2;
    const s = WatermarkStrategy.forMonotonousTimestamps<number>()
      .withIdleness(30)
      .withTimestampAssigner(assigner);
    assert.equal(s.timestampAssigner, assigner);
    assert.equal(s.idleTimeoutMs, 30);
    assert.equal(s.withIdleness(40).timestampAssigner, assigner);
  });

  it('uses a custom generator factory, called once per generator with the context', () => {
    const contexts: unknown[] = [];
    const generator: WatermarkGenerator<number> = { onEvent() {}, onPeriodicEmit() {} };
    const s = WatermarkStrategy.forGenerator<number>((c) => {
      contexts.push(c);
      return generator;
    });
    assert.equal(s.createWatermarkGenerator(ctx), generator);
    assert.deepEqual(contexts, [ctx]);
  });

  it('rejects what is not a function or not a valid duration when the strategy is built', () => {
    assert.throws(
      () => WatermarkStrategy.forGenerator(42 as never),
      (e: Error) =>
        e instanceof ConfigurationError && e.message === 'forGenerator needs a generator factory function',
    );
    assert.throws(
      () => WatermarkStrategy.noWatermarks().withTimestampAssigner('ts' as never),
      (e: Error) => e instanceof ConfigurationError && e.message === 'withTimestampAssigner needs a function',
    );
    for (const bad of [0, -1, Number.POSITIVE_INFINITY]) {
      assert.throws(
        () => WatermarkStrategy.noWatermarks().withIdleness(bad),
        (e: Error) =>
          e instanceof ConfigurationError &&
          e.message === `The idle timeout must be a positive number of milliseconds, got ${bad}`,
      );
    }
    assert.throws(() => WatermarkStrategy.forBoundedOutOfOrderness(-1), ConfigurationError);
  });
});
