// Restart strategies: whether and when a failed job restarts from its latest completed checkpoint (Flink's names).
import { ConfigurationError } from '../core/errors.ts';

/** Decides, per failure, whether to restart and after how long. */
export interface RestartStrategy {
  readonly description: string;
  /** The delay before the next attempt, or undefined to give up (the job then fails with the error). */
  nextDelay(failureTime: number): number | undefined;
}

/** Restarts up to `attempts` times, waiting `delayMs` each time. */
class FixedDelayRestartStrategy implements RestartStrategy {
  private used = 0;
  constructor(
    private readonly attempts: number,
    private readonly delayMs: number,
  ) {}
  get description(): string {
    return `fixed delay (${this.attempts} attempts, ${this.delayMs} ms)`;
  }
  nextDelay(): number | undefined {
    if (this.used >= this.attempts) return undefined;
    this.used++;
    return this.delayMs;
  }
}

/** Restarts unless more than `maxFailures` happened within the last `intervalMs`. */
class FailureRateRestartStrategy implements RestartStrategy {
  private readonly failures: number[] = [];
  constructor(
    private readonly maxFailures: number,
    private readonly intervalMs: number,
    private readonly delayMs: number,
  ) {}
  get description(): string {
    return `failure rate (${this.maxFailures} per ${this.intervalMs} ms, ${this.delayMs} ms delay)`;
  }
  nextDelay(failureTime: number): number | undefined {
    this.failures.push(failureTime);
    // The failure just pushed is never older than the interval (>= 1 ms), so the queue never runs empty.
    while (this.failures[0]! <= failureTime - this.intervalMs) this.failures.shift();
    return this.failures.length > this.maxFailures ? undefined : this.delayMs;
  }
}

/** Options of {@link RestartStrategies.exponentialDelay}; Flink's `restart-strategy.exponential-delay.*` keys. */
export interface ExponentialDelayOptions {
  /** The delay before the first restart (default 1 000 ms). */
  initialBackoffMs?: number;
  /** The largest delay (default 3 600 000 ms, one hour). */
  maxBackoffMs?: number;
  /** The factor the delay grows by per restart (default 1.5; must be > 1). */
  backoffMultiplier?: number;
  /** A job that runs this long after its last restart starts again from the initial delay (default one hour). */
  resetBackoffThresholdMs?: number;
  /** Each delay moves by a random amount of up to this fraction of itself, so restarts spread out (default 0.1). */
  jitterFactor?: number;
  /** Restarts allowed since the last reset before the job fails (default unlimited, as in Flink). */
  attemptsBeforeResetBackoff?: number;
  /** A source of uniform numbers in [0, 1) for the jitter (default Math.random; tests pass a fixed one). */
  random?: () => number;
}

/**
 * Waits `initial * multiplier^n` (plus jitter, capped at the maximum) before the n-th restart since the last
 * reset; a run that lasted `resetBackoffThresholdMs` after its restart resets n to 0. Flink's
 * ExponentialDelayRestartBackoffTimeStrategy, with its rounding: the delay is truncated to whole ms before jitter.
 */
class ExponentialDelayRestartStrategy implements RestartStrategy {
  private attempt = 0;
  private nextRestartAt = Number.NEGATIVE_INFINITY;
  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
    private readonly multiplier: number,
    private readonly resetThresholdMs: number,
    private readonly jitter: number,
    private readonly attempts: number,
    private readonly random: () => number,
  ) {}
  get description(): string {
    return `exponential delay (${this.initialMs} ms × ${this.multiplier} up to ${this.maxMs} ms, reset after ${this.resetThresholdMs} ms, jitter ${this.jitter})`;
  }
  nextDelay(failureTime: number): number | undefined {
    // The quiet period counts from the moment the last restart began, as in Flink.
    if (failureTime - this.nextRestartAt >= this.resetThresholdMs) this.attempt = 0;
    const base = Math.trunc(this.initialMs * this.multiplier ** this.attempt);
    const offset = Math.trunc(base * this.jitter);
    const jitter = offset === 0 ? 0 : -offset + Math.floor(this.random() * (2 * offset + 1));
    const delay = Math.max(this.initialMs, Math.min(base + jitter, this.maxMs));
    this.attempt++;
    if (this.attempt > this.attempts) return undefined;
    this.nextRestartAt = failureTime + delay;
    return delay;
  }
}

const noRestart: RestartStrategy = { description: 'no restart', nextDelay: () => undefined };

function check(name: string, value: number, min: number): void {
  if (!(value >= min) || !Number.isFinite(value))
    throw new ConfigurationError(`Restart strategy: ${name} must be >= ${min}, got ${value}`);
}

/**
 * The restart strategies of Flink's `RestartStrategies`. A strategy object keeps its own count, so give each
 * environment its own. Without checkpointing there is nothing to restore: a restart reruns from the start.
 *
 * @example
 * env.setRestartStrategy(RestartStrategies.fixedDelay(3, 1_000));
 * env.setRestartStrategy(RestartStrategies.failureRate(5, 60_000, 1_000));
 * env.setRestartStrategy(RestartStrategies.noRestart());
 */
export const RestartStrategies = {
  /** Up to `attempts` restarts, `delayMs` apart. */
  fixedDelay(attempts: number, delayMs: number): RestartStrategy {
    check('attempts', attempts, 0);
    check('delayMs', delayMs, 0);
    return new FixedDelayRestartStrategy(attempts, delayMs);
  },
  /** Restarts while at most `maxFailures` failures fall within `intervalMs`, waiting `delayMs`. */
  failureRate(maxFailures: number, intervalMs: number, delayMs: number): RestartStrategy {
    check('maxFailures', maxFailures, 1);
    check('intervalMs', intervalMs, 1);
    check('delayMs', delayMs, 0);
    return new FailureRateRestartStrategy(maxFailures, intervalMs, delayMs);
  },
  /**
   * Restarts with a delay that grows exponentially and resets after a quiet period (Flink's `exponentialDelay`).
   *
   * @example
   * env.setRestartStrategy(
   *   RestartStrategies.exponentialDelay({ initialBackoffMs: 500, maxBackoffMs: 60_000, backoffMultiplier: 2 }),
   * );
   */
  exponentialDelay(options: ExponentialDelayOptions = {}): RestartStrategy {
    const initial = options.initialBackoffMs ?? 1_000;
    const max = options.maxBackoffMs ?? 3_600_000;
    const multiplier = options.backoffMultiplier ?? 1.5;
    const reset = options.resetBackoffThresholdMs ?? 3_600_000;
    const jitter = options.jitterFactor ?? 0.1;
    const attempts = options.attemptsBeforeResetBackoff ?? Number.POSITIVE_INFINITY;
    check('initialBackoffMs', initial, 1);
    check('maxBackoffMs', max, initial);
    if (!(multiplier > 1) || !Number.isFinite(multiplier))
      throw new ConfigurationError(`Restart strategy: backoffMultiplier must be > 1, got ${multiplier}`);
    check('resetBackoffThresholdMs', reset, 1);
    if (!(jitter >= 0 && jitter <= 1))
      throw new ConfigurationError(`Restart strategy: jitterFactor must be within [0, 1], got ${jitter}`);
    if (!(attempts >= 1))
      throw new ConfigurationError(
        `Restart strategy: attemptsBeforeResetBackoff must be >= 1, got ${attempts}`,
      );
    return new ExponentialDelayRestartStrategy(
      initial,
      max,
      multiplier,
      reset,
      jitter,
      attempts,
      options.random ?? Math.random,
    );
  },
  /** Fails the job on the first failure (the default without checkpointing). */
  noRestart(): RestartStrategy {
    return noRestart;
  },
};
