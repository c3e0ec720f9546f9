// The Kafka comparison's data: the input orders, the running totals every system must write, and their checksum.
// Java twin of the output format: bench/flink/.../KafkaUserTotal.java (toJson).

/** Distinct users (the keys of the stateful step). */
export const KAFKA_USERS = 10_000;

/** An input record's value. */
export interface KafkaOrder {
  readonly id: number;
  readonly user: string;
  readonly amount: number;
}

/** An output record's value: the user's running count and amount after order `id`. */
export interface KafkaUserTotal {
  readonly id: number;
  readonly user: string;
  readonly count: number;
  readonly total: number;
}

/** Order `i` of the input topic; ~45 bytes of JSON. */
export function orderAt(i: number): KafkaOrder {
  return { id: i, user: `u${i % KAFKA_USERS}`, amount: (i * 37) % 1000 };
}

/**
 * The partition order `i` is written to. A user's orders all go to one partition, in id order, so every user's
 * running totals are the same whatever the parallelism and however the partitions interleave.
 */
export function partitionOf(i: number, partitions: number): number {
  return (i % KAFKA_USERS) % partitions;
}

/** FNV-1a over the UTF-16 code units of an ASCII string: a record's hash for the order-independent checksum. */
export function hashValue(value: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Output count and the sum modulo 2^32 of the values' hashes: equal for equal sets of records, in any order. */
export interface TopicChecksum {
  readonly count: number;
  readonly checksum: number;
}

/** What the job must write for `orders` input records: computed directly, the reference both systems must match. */
export function expectedTotals(orders: number): TopicChecksum {
  const counts = new Int32Array(KAFKA_USERS);
  const totals = new Float64Array(KAFKA_USERS);
  let checksum = 0;
  for (let i = 0; i < orders; i++) {
    const order = orderAt(i);
    const k = i % KAFKA_USERS;
    counts[k]!++;
    totals[k]! += order.amount;
    const total: KafkaUserTotal = { id: i, user: order.user, count: counts[k]!, total: totals[k]! };
    checksum = (checksum + hashValue(JSON.stringify(total))) | 0;
  }
  return { count: orders, checksum: checksum >>> 0 };
}
