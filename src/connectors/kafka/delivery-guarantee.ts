// DeliveryGuarantee: what a Kafka sink promises about its records after failures (Flink's names).

/**
 * - `NONE`: records are sent as they arrive and never re-sent; a failure may lose the ones not yet acknowledged.
 * - `AT_LEAST_ONCE`: records not acknowledged by the broker when a checkpoint is taken go into it and are sent
 *   again after a restore, so none is lost; some may be written twice.
 * - `EXACTLY_ONCE`: each checkpoint interval's records are written in one Kafka transaction per sink subtask,
 *   committed when the checkpoint completes; a `read_committed` consumer sees every record once.
 */
export const DeliveryGuarantee = {
  NONE: 'none',
  AT_LEAST_ONCE: 'at-least-once',
  EXACTLY_ONCE: 'exactly-once',
} as const;

export type DeliveryGuarantee = (typeof DeliveryGuarantee)[keyof typeof DeliveryGuarantee];
