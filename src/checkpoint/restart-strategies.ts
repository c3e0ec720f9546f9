// Restart strategies: whether and when a failed job restarts from its latest completed checkpoint (Flink's names).
import { ConfigurationError } from '../api/errors.ts';

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
    while (this.failures.length > 0 && this.failures[0]! <= failureTime - this.intervalMs)
      this.failures.shift();
    return this.failures.length > this.maxFailures ? undefined : this.delayMs;
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
  /** Fails the job on the first failure (the default without checkpointing). */
  noRestart(): RestartStrategy {
    return noRestart;
  },
};
