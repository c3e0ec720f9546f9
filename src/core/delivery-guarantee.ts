// DeliveryGuarantee: what a sink promises about its records after failures (Flink's names, shared by all sinks).

/**
 * - `NONE`: records are sent as they arrive and never re-sent; a failure may lose the ones not yet acknowledged.
 * - `AT_LEAST_ONCE`: what was written before a checkpoint is durable when the checkpoint is taken, and what
 *   follows it is written again after a restore, so no record is lost; some may be written twice.
 * - `EXACTLY_ONCE`: each checkpoint interval's records become visible only when that checkpoint completes
 *   (two-phase commit); after a restore every record is visible once.
 *
 * `KafkaSink` takes all three (Kafka transactions for `EXACTLY_ONCE`); `FileSink` takes `AT_LEAST_ONCE` and
 * `EXACTLY_ONCE`.
 */
export const DeliveryGuarantee = {
  NONE: 'none',
  AT_LEAST_ONCE: 'at-least-once',
  EXACTLY_ONCE: 'exactly-once',
} as const;

/** One of the {@link DeliveryGuarantee} values. */
export type DeliveryGuarantee = (typeof DeliveryGuarantee)[keyof typeof DeliveryGuarantee];
