// Restart strategies: exponentialDelay ported from Flink's ExponentialDelayRestartBackoffTimeStrategyTest.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError } from '../core/errors.ts';
import { RestartStrategies } from './restart-strategies.ts';

/** Jitter draws from a fixed sequence, so every delay is exact. */
function fixedRandom(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length]!;
}

describe('RestartStrategies.exponentialDelay', () => {
  it('gives up after attemptsBeforeResetBackoff restarts (testMaxAttempts)', () => {
    const strategy = RestartStrategies.exponentialDelay({
      initialBackoffMs: 1,
      maxBackoffMs: 3,
      backoffMultiplier: 1.2,
      resetBackoffThresholdMs: 4,
      jitterFactor: 0.25,
      attemptsBeforeResetBackoff: 13,
    });
    const delays = [];
    for (let i = 0; i < 14; i++) delays.push(strategy.nextDelay(0));
    assert.equal(
      delays.slice(0, 13).every((d) => d !== undefined),
      true,
    );
    assert.equal(delays[13], undefined);
  });

  it('starts at the initial backoff (testInitialBackoff)', () => {
    const strategy = RestartStrategies.exponentialDelay({
      initialBackoffMs: 42,
      maxBackoffMs: 45,
      backoffMultiplier: 2,
      resetBackoffThresholdMs: 8,
      jitterFactor: 0,
    });
    assert.equal(strategy.nextDelay(0), 42);
  });

  it('multiplies by the backoff multiplier, truncating to whole ms (testBackoffMultiplier)', () => {
    const strategy = RestartStrategies.exponentialDelay({
      initialBackoffMs: 4,
      maxBackoffMs: 300,
      backoffMultiplier: 2.3,
      resetBackoffThresholdMs: 8,
      jitterFactor: 0,
    });
    assert.deepEqual([strategy.nextDelay(0), strategy.nextDelay(0), strategy.nextDelay(0)], [4, 9, 21]);
  });

  it('never exceeds the maximum, jitter included (testMaxBackoff)', () => {
    const strategy = RestartStrategies.exponentialDelay({
      initialBackoffMs: 1,
      maxBackoffMs: 6,
      backoffMultiplier: 2,
      resetBackoffThresholdMs: 8,
      jitterFactor: 0.25,
      random: fixedRandom(0.99),
    });
    const delays = Array.from({ length: 10 }, () => strategy.nextDelay(0));
    assert.deepEqual(delays, [1, 2, 5, 6, 6, 6, 6, 6, 6, 6]);
  });

  it('resets after a quiet period counted from the last restart (testResetBackoff)', () => {
    const strategy = RestartStrategies.exponentialDelay({
      initialBackoffMs: 1,
      maxBackoffMs: 5,
      backoffMultiplier: 2,
      resetBackoffThresholdMs: 8,
      jitterFactor: 0.25,
      random: fixedRandom(0.5),
    });
    let now = 0;
    const first = strategy.nextDelay(now)!;
    assert.equal(first, 1);
    now += 8 + first - 1;
    const second = strategy.nextDelay(now)!;
    assert.equal(second, 2, 'backoff should be increased');
    now += 8 + second;
    assert.equal(strategy.nextDelay(now), 1, 'backoff should be reset');
  });

  it('spreads delays over the jitter range (testJitter)', () => {
    // initial 2, max 7, multiplier 2, jitter 0.25: the second delay is 4 ± 1, the third 8 ± 2 capped at 7.
    const second = (r: number) => {
      const s = RestartStrategies.exponentialDelay({
        initialBackoffMs: 2,
        maxBackoffMs: 7,
        backoffMultiplier: 2,
        resetBackoffThresholdMs: 1,
        jitterFactor: 0.25,
        random: fixedRandom(r),
      });
      s.nextDelay(0);
      return s.nextDelay(0);
    };
    assert.deepEqual([0, 0.34, 0.5, 0.67, 0.99].map(second), [3, 4, 4, 5, 5]);
  });

  it('combines reset, growth and cap (testMultipleSettings)', () => {
    const strategy = RestartStrategies.exponentialDelay({
      initialBackoffMs: 1,
      maxBackoffMs: 9,
      backoffMultiplier: 2,
      resetBackoffThresholdMs: 8,
      jitterFactor: 0.25,
      random: fixedRandom(0.5),
    });
    assert.equal(strategy.nextDelay(0), 1);
    assert.equal(strategy.nextDelay(50), 1);
    assert.equal(strategy.nextDelay(54), 2);
    assert.equal(strategy.nextDelay(54 + 8 + 9 + 1), 1);
    assert.equal(strategy.nextDelay(72), 2);
  });

  it('rejects invalid settings when configured', () => {
    assert.throws(
      () => RestartStrategies.exponentialDelay({ backoffMultiplier: 1 }),
      (e: unknown) =>
        e instanceof ConfigurationError && /backoffMultiplier must be > 1, got 1/.test(e.message),
    );
    assert.throws(
      () => RestartStrategies.exponentialDelay({ initialBackoffMs: 10, maxBackoffMs: 5 }),
      /maxBackoffMs must be >= 10, got 5/,
    );
    assert.throws(() => RestartStrategies.exponentialDelay({ jitterFactor: 1.5 }), /jitterFactor/);
  });
});
