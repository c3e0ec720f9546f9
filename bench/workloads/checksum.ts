// The result of a workload as an order-independent fingerprint: output count plus the sum, modulo 2^32,
// of one murmur3 hash per output record. Sums commute, so parallel subtasks and any emission order agree.
// Java twin: bench/flink/.../Hashing.java (record hashes) and ChecksumCollector.java (the sum).

import { finish, mixInt, mixLong, RECORD_HASH_SEED } from './hash.ts';

/** What every workload implementation returns. */
export interface WorkloadResult {
  /** Number of output records. */
  readonly count: number;
  /** Sum of the record hashes modulo 2^32, as an unsigned integer. */
  readonly checksum: number;
  /** Number of input events consumed, for events/s. */
  readonly events: number;
  /**
   * Milliseconds of the run spent starting worker threads and loading the job in them: left out of the timed run,
   * as Flink's net runtime leaves out the start of its MiniCluster. Absent or 0 on one thread.
   */
  readonly startupMs?: number;
  /** Checkpoints completed during the run (runs with checkpointing on). */
  readonly checkpoints?: number;
}

/** Accumulates record hashes; one per sink. Cost: one add per output record. */
export class ChecksumAccumulator {
  count = 0;
  sum = 0;

  add(recordHash: number): void {
    this.count++;
    this.sum = (this.sum + recordHash) | 0;
  }

  result(events: number, startupMs = 0): WorkloadResult {
    return { count: this.count, checksum: this.sum >>> 0, events, startupMs };
  }
}

/** Workload 1 output: (key, mapped value). */
export function hashStateless(key: number, value: number): number {
  return finish(mixInt(mixInt(RECORD_HASH_SEED, key), value), 2);
}

/** Workload 2 output: (key, running count including this event). */
export function hashRollingCount(key: number, count: number): number {
  return finish(mixInt(mixInt(RECORD_HASH_SEED, key), count), 2);
}

/** Workload 3 output: (key, window start, count, sum of values). */
export function hashWindowAggregate(key: number, windowStart: number, count: number, sum: number): number {
  return finish(mixInt(mixInt(mixLong(mixInt(RECORD_HASH_SEED, key), windowStart), count), sum), 5);
}

/** Workload 4 output: (window start, auction, bid count) for each auction with the window's maximum count. */
export function hashHotItem(windowStart: number, auction: number, count: number): number {
  return finish(mixInt(mixInt(mixLong(RECORD_HASH_SEED, windowStart), auction), count), 4);
}

/** Workload 5 output: (bidder, session start, session end = last bid + gap, bid count). */
export function hashSession(bidder: number, start: number, end: number, count: number): number {
  return finish(mixInt(mixLong(mixLong(mixInt(RECORD_HASH_SEED, bidder), start), end), count), 6);
}

/** Workload 6 output: (key, id of the probe event, id of the large event, id of the drain event). */
export function hashCepMatch(key: number, probeId: number, largeId: number, drainId: number): number {
  return finish(mixInt(mixInt(mixInt(mixInt(RECORD_HASH_SEED, key), probeId), largeId), drainId), 4);
}

/** Workload 7 output: (uid, events in the batch, timestamp of the batch's first event). */
export function hashBatch(uid: number, count: number, firstTs: number): number {
  return finish(mixLong(mixInt(mixInt(RECORD_HASH_SEED, uid), count), firstTs), 4);
}

/** Workload q7 output: (window end, auction, bidder, price) for each bid with the window's highest price. */
export function hashHighestBid(windowEnd: number, auction: number, bidder: number, price: number): number {
  return finish(mixInt(mixInt(mixInt(mixLong(RECORD_HASH_SEED, windowEnd), auction), bidder), price), 5);
}

/** Workload q8 output: (person id, name, window start); the name is mixed one UTF-16 code unit at a time. */
export function hashNewPerson(person: number, name: string, windowStart: number): number {
  let h = mixInt(RECORD_HASH_SEED, person);
  for (let k = 0; k < name.length; k++) h = mixInt(h, name.charCodeAt(k));
  return finish(mixLong(h, windowStart), 3 + name.length);
}
