// Time-to-live for keyed state entries, as Flink's StateTtlConfig.
import { ConfigurationError } from './errors.ts';

/** When an entry's time-to-live clock restarts. */
export type TtlUpdateType = 'OnCreateAndWrite' | 'OnReadAndWrite';

/**
 * Expires keyed state entries a fixed processing time after they were last written (or read, with
 * `OnReadAndWrite`). An expired entry is never returned (Flink's `NeverReturnExpired`); it is removed when it is
 * next touched and on snapshot.
 *
 * @example
 * new ValueStateDescriptor<number>('last', { ttl: StateTtlConfig.newBuilder(60_000).build() })
 */
export class StateTtlConfig {
  private constructor(
    readonly ttlMs: number,
    readonly updateType: TtlUpdateType,
  ) {}

  static newBuilder(ttlMs: number): StateTtlConfigBuilder {
    return new StateTtlConfigBuilder(ttlMs);
  }

  /** @internal */
  static create(ttlMs: number, updateType: TtlUpdateType): StateTtlConfig {
    if (!(ttlMs > 0) || !Number.isFinite(ttlMs)) {
      throw new ConfigurationError(`State TTL must be a positive number of milliseconds, got ${ttlMs}`);
    }
    return new StateTtlConfig(ttlMs, updateType);
  }
}

/** Builds a {@link StateTtlConfig}. */
export class StateTtlConfigBuilder {
  private updateType: TtlUpdateType = 'OnCreateAndWrite';
  constructor(private readonly ttlMs: number) {}

  setUpdateType(updateType: TtlUpdateType): this {
    this.updateType = updateType;
    return this;
  }

  /** Same as `setUpdateType('OnReadAndWrite')`. */
  updateTtlOnReadAndWrite(): this {
    return this.setUpdateType('OnReadAndWrite');
  }

  build(): StateTtlConfig {
    return StateTtlConfig.create(this.ttlMs, this.updateType);
  }
}
