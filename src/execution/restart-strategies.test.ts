// Restart strategies: Flink's FixedDelay-, FailureRate- and ExponentialDelayRestartBackoffTimeStrategyTest.
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

  it('spreads a delay evenly over base ± offset, both ends included', () => {
    // The second delay: base 200, jitter 0.1, so 180 … 220, with 41 values for the random number to pick from.
    const second = (r: number) => {
      const s = RestartStrategies.exponentialDelay({
        initialBackoffMs: 100,
        backoffMultiplier: 2,
        resetBackoffThresholdMs: 1_000_000,
        jitterFactor: 0.1,
        random: fixedRandom(r),
      });
      s.nextDelay(0);
      return s.nextDelay(0);
    };
    assert.deepEqual([0, 0.5, 0.999].map(second), [180, 200, 220]);
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

describe('RestartStrategies.fixedDelay', () => {
  it('restarts exactly `attempts` times, each after the delay (FixedDelayRestartBackoffTimeStrategyTest)', () => {
    const strategy = RestartStrategies.fixedDelay(2, 5);
    assert.equal(strategy.description, 'fixed delay (2 attempts, 5 ms)');
    assert.deepEqual(
      [0, 1, 2, 3].map((t) => strategy.nextDelay(t)),
      [5, 5, undefined, undefined],
    );
  });

  it('with 0 attempts never restarts; a delay of 0 restarts at once', () => {
    assert.equal(RestartStrategies.fixedDelay(0, 5).nextDelay(0), undefined);
    assert.equal(RestartStrategies.fixedDelay(1, 0).nextDelay(0), 0);
  });

  it('rejects negative or non-finite settings, naming them', () => {
    assert.throws(
      () => RestartStrategies.fixedDelay(-1, 0),
      (e: unknown) =>
        e instanceof ConfigurationError && e.message === 'Restart strategy: attempts must be >= 0, got -1',
    );
    assert.throws(() => RestartStrategies.fixedDelay(1, -1), {
      message: 'Restart strategy: delayMs must be >= 0, got -1',
    });
    assert.throws(() => RestartStrategies.fixedDelay(Number.NaN, 0), {
      message: 'Restart strategy: attempts must be >= 0, got NaN',
    });
    assert.throws(() => RestartStrategies.fixedDelay(1, Number.POSITIVE_INFINITY), {
      message: 'Restart strategy: delayMs must be >= 0, got Infinity',
    });
  });
});

describe('RestartStrategies.failureRate', () => {
  it('restarts while at most maxFailures fall within the interval (testManyFailuresWithinRate, testFailuresExceedingRate)', () => {
    const strategy = RestartStrategies.failureRate(2, 10, 3);
    assert.equal(strategy.description, 'failure rate (2 per 10 ms, 3 ms delay)');
    assert.equal(strategy.nextDelay(0), 3);
    assert.equal(strategy.nextDelay(5), 3);
    // A third failure within 10 ms of the first.
    assert.equal(strategy.nextDelay(9), undefined);
  });

  it('forgets a failure exactly one interval old', () => {
    const strategy = RestartStrategies.failureRate(1, 10, 0);
    assert.equal(strategy.nextDelay(0), 0);
    // The failure at 0 is 10 ms old at 10: outside the interval, so this is the only one within it.
    assert.equal(strategy.nextDelay(10), 0);
    assert.equal(strategy.nextDelay(19), undefined);
  });

  it('keeps restarting when failures are spread out', () => {
    const strategy = RestartStrategies.failureRate(1, 10, 7);
    assert.deepEqual(
      [0, 10, 20, 30, 40].map((t) => strategy.nextDelay(t)),
      [7, 7, 7, 7, 7],
    );
  });

  it('rejects settings below their minimum, naming them', () => {
    assert.throws(() => RestartStrategies.failureRate(0, 1, 0), {
      message: 'Restart strategy: maxFailures must be >= 1, got 0',
    });
    assert.throws(() => RestartStrategies.failureRate(1, 0, 0), {
      message: 'Restart strategy: intervalMs must be >= 1, got 0',
    });
    assert.throws(() => RestartStrategies.failureRate(1, 1, -1), {
      message: 'Restart strategy: delayMs must be >= 0, got -1',
    });
    assert.equal(RestartStrategies.failureRate(1, 1, 0).nextDelay(0), 0);
  });
});

describe('RestartStrategies.exponentialDelay defaults and limits', () => {
  it("uses Flink's defaults: 1 s initial, factor 1.5, jitter 0.1, one hour maximum and reset", () => {
    const strategy = RestartStrategies.exponentialDelay({ random: fixedRandom(0) });
    assert.equal(
      strategy.description,
      'exponential delay (1000 ms × 1.5 up to 3600000 ms, reset after 3600000 ms, jitter 0.1)',
    );
    // Jitter at its lowest: -10 % of 1000 (raised back to the initial delay), of 1500, of 2250.
    assert.deepEqual(
      [strategy.nextDelay(0), strategy.nextDelay(0), strategy.nextDelay(0)],
      [1_000, 1_350, 2_025],
    );
    const capped = RestartStrategies.exponentialDelay({ jitterFactor: 0 });
    let last = 0;
    for (let i = 0; i < 100; i++) last = capped.nextDelay(0)!;
    assert.equal(last, 3_600_000);
    const reset = RestartStrategies.exponentialDelay({ jitterFactor: 0 });
    assert.equal(reset.nextDelay(0), 1_000);
    assert.equal(reset.nextDelay(1_000 + 3_600_000 - 1), 1_500);
    assert.equal(reset.nextDelay(1_000 + 3_600_000 - 1 + 1_500 + 3_600_000), 1_000);
  });

  it('never goes below the initial delay, whatever the jitter', () => {
    const strategy = RestartStrategies.exponentialDelay({
      initialBackoffMs: 10,
      backoffMultiplier: 2,
      jitterFactor: 0.5,
      random: fixedRandom(0),
    });
    assert.deepEqual([strategy.nextDelay(0), strategy.nextDelay(0)], [10, 10]);
  });

  it('draws a random number only when the jitter moves the delay by at least 1 ms', () => {
    // The first delay (1 ms, jitter 0.5) has no room for jitter and draws nothing; the second (10 ms) draws 0.
    const strategy = RestartStrategies.exponentialDelay({
      initialBackoffMs: 1,
      backoffMultiplier: 10,
      jitterFactor: 0.5,
      random: fixedRandom(0, 0.99),
    });
    assert.deepEqual([strategy.nextDelay(0), strategy.nextDelay(0)], [1, 5]);
  });

  it('accepts the limits of each setting and rejects what lies beyond', () => {
    assert.equal(
      RestartStrategies.exponentialDelay({
        initialBackoffMs: 1,
        maxBackoffMs: 1,
        resetBackoffThresholdMs: 1,
        jitterFactor: 1,
        attemptsBeforeResetBackoff: 1,
        random: fixedRandom(0.5),
      }).nextDelay(0),
      1,
    );
    assert.equal(RestartStrategies.exponentialDelay({ jitterFactor: 0 }).nextDelay(0), 1_000);
    const rejects = (options: Parameters<typeof RestartStrategies.exponentialDelay>[0], message: string) =>
      assert.throws(
        () => RestartStrategies.exponentialDelay(options),
        (e: unknown) => e instanceof ConfigurationError && e.message === `Restart strategy: ${message}`,
      );
    rejects({ initialBackoffMs: 0 }, 'initialBackoffMs must be >= 1, got 0');
    rejects({ resetBackoffThresholdMs: 0 }, 'resetBackoffThresholdMs must be >= 1, got 0');
    rejects({ backoffMultiplier: Number.POSITIVE_INFINITY }, 'backoffMultiplier must be > 1, got Infinity');
    rejects({ jitterFactor: -0.1 }, 'jitterFactor must be within [0, 1], got -0.1');
    rejects({ jitterFactor: 1.5 }, 'jitterFactor must be within [0, 1], got 1.5');
    rejects({ attemptsBeforeResetBackoff: 0 }, 'attemptsBeforeResetBackoff must be >= 1, got 0');
  });
});

describe('RestartStrategies.noRestart', () => {
  it('never restarts', () => {
    const strategy = RestartStrategies.noRestart();
    assert.equal(strategy.description, 'no restart');
    assert.equal(strategy.nextDelay(0), undefined);
  });
});
