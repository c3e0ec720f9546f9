// The nine workloads' identities and parameters: the single definition every system (limit, RxJS, Weir,
// Flink) reads, so a result differs only when an implementation does. bench/flink's Params.java mirrors it.

import type { BidStreamConfig, EventStreamConfig, NexmarkStreamConfig } from './generator.ts';

/** The workloads, in the order the report lists them. */
export const WORKLOAD_IDS = [
  'stateless',
  'rolling-count',
  'tumbling-window',
  'hot-items',
  'session-window',
  'cep',
  'batching-timer',
  'q7',
  'q8',
] as const;

export type WorkloadId = (typeof WORKLOAD_IDS)[number];

/** One line per workload for the report; the precise definitions are in docs/performance.md. */
export const WORKLOAD_TITLES: Record<WorkloadId, string> = {
  stateless: '1 stateless map → filter',
  'rolling-count': '2 keyed rolling count (ValueState)',
  'tumbling-window': '3 tumbling 1 s window count+sum',
  'hot-items': '4 sliding 10 s/2 s hot items (q5)',
  'session-window': '5 session windows per bidder (q11)',
  cep: '6 CEP followedBy ×3 within 2 s',
  'batching-timer': '7 process fn + event-time timer',
  q7: '8 highest bid per 10 s window (q7)',
  q8: '9 10 s window join persons ⋈ auctions (q8)',
};

/** Workloads whose implementation keeps per-key state, for which bytes per key are measured. */
export const STATEFUL_WORKLOADS: ReadonlySet<WorkloadId> = new Set<WorkloadId>([
  'rolling-count',
  'tumbling-window',
  'hot-items',
  'session-window',
  'cep',
  'batching-timer',
  'q7',
  'q8',
]);

/**
 * Workloads measured on durable state as well (Weir's LMDB backend beside Flink's embedded RocksDB backend): keyed
 * ValueState, window panes and timers, the three state shapes most jobs have.
 */
export const DURABLE_STATE_WORKLOADS: ReadonlySet<WorkloadId> = new Set<WorkloadId>([
  'rolling-count',
  'tumbling-window',
  'batching-timer',
]);

/** Workload 1: map e → (key, value * 3 + 1), keep the records whose new value % 4 != 0 (3 in 4). */
export interface StatelessParams {
  readonly multiplier: number;
  readonly offset: number;
  readonly dropModulus: number;
}

/** Workloads 3: tumbling event-time windows aligned to the epoch, like Flink's. */
export interface TumblingParams {
  readonly sizeMs: number;
}

/** Workload 4: sliding event-time windows (size, slide), aligned to the epoch. */
export interface SlidingParams {
  readonly sizeMs: number;
  readonly slideMs: number;
}

/** Workload 5: event-time session windows with a gap. */
export interface SessionParams {
  readonly gapMs: number;
}

/** Workload 6: begin(probe: value < probeBelow) → followedBy(large: value >= largeAtLeast) → followedBy(drain: value >= drainAtLeast), within withinMs. */
export interface CepParams {
  readonly probeBelow: number;
  readonly largeAtLeast: number;
  readonly drainAtLeast: number;
  readonly withinMs: number;
}

/** Workload 7: emit (uid, count, firstTs) at `size` events or at the event-time timer firstTs + timeoutMs. */
export interface BatchingParams {
  readonly size: number;
  readonly timeoutMs: number;
}

/**
 * A cooperative hook to measure the heap taken by state: an implementation calls `hit(i)` while it
 * generates event i, for i = baselineIndex and i = measureIndex (both valid indices). The runner forces a
 * GC and reads the heap at each; the difference is the state built between the two (plus in-flight data).
 */
export interface MemoryProbe {
  readonly baselineIndex: number;
  readonly measureIndex: number;
  hit(index: number): void;
}

/** Everything a workload implementation needs. Systems ignore what does not apply to them. */
export interface WorkloadParams {
  /** Number of input events (events or bids) to generate: indices 0 .. events - 1. */
  readonly events: number;
  readonly stream: EventStreamConfig;
  readonly bids: BidStreamConfig;
  readonly stateless: StatelessParams;
  readonly tumbling: TumblingParams;
  readonly sliding: SlidingParams;
  readonly session: SessionParams;
  readonly cep: CepParams;
  readonly batching: BatchingParams;
  /** Workload q8's input: persons, auctions and bids (q7 reads the bid stream of workloads 4 and 5). */
  readonly nexmark: NexmarkStreamConfig;
  /** Workloads q7 and q8: tumbling event-time windows, aligned to the epoch. */
  readonly nexmarkWindow: TumblingParams;
  /** Parallelism of the operators after the source (the source itself is one ordered stream). */
  readonly parallelism: number;
  /** Weir only: keep keyed state in the LMDB backend under this directory instead of the heap (weir-lmdb). */
  readonly lmdbPath?: string;
  /** weir-lmdb: the backend's cache in entries per subtask (`--lmdb-cache`); its default when absent. */
  readonly lmdbCacheEntries?: number;
  /** Weir only: checkpoint every `intervalMs` into `storage` (weir-checkpointed, weir-lmdb-checkpointed). */
  readonly checkpoint?: BenchCheckpointing;
  readonly probe?: MemoryProbe;
}

/**
 * Checkpointing of a Weir workload run: aligned exactly-once barriers every `intervalMs` into a FileCheckpointStorage
 * directory; `onCompleted` hears each completed checkpoint (the runner counts them per run).
 */
export interface BenchCheckpointing {
  readonly intervalMs: number;
  readonly storage: string;
  readonly onCompleted?: (durationMs: number, bytesWritten: number) => void;
}

/** 2023-11-14T22:13:20Z: a realistic epoch-millisecond base, past 2^32 so timestamps need 64 bits. */
export const BASE_TIMESTAMP = 1_700_000_000_000;

/** Distinct keys of the generic event stream unless a run asks for another count (`--keys`). */
export const DEFAULT_KEYS = 10_000;

/** The bid stream's auctions and bidders unless a run asks for another count (`--bid-keys`). */
export const DEFAULT_AUCTIONS = 10_000;
export const DEFAULT_BIDDERS = 100_000;

/**
 * The default parameters for `events` input events; `keys` is the generic stream's key count (workloads 1, 2,
 * 3, 6 and 7), for measuring how the cost grows with the number of keys. `bidKeys`, when given, is both the
 * auctions and the bidders of the bid stream: the keys of hot items (auction) and sessions (bidder); the hot
 * auctions and bidders stay as they are, so only the cold tail grows.
 */
export function defaultParams(
  events: number,
  seed = 42,
  parallelism = 1,
  keys = DEFAULT_KEYS,
  bidKeys?: number,
): WorkloadParams {
  if (!Number.isInteger(events) || events < 1 || events >= 2 ** 31) {
    throw new RangeError(`events must be an integer in [1, 2^31), got ${events}`);
  }
  if (!Number.isInteger(keys) || keys < 1 || keys >= 2 ** 31) {
    throw new RangeError(`keys must be an integer in [1, 2^31), got ${keys}`);
  }
  // At least the hot bidders (1,000), so the hot set stays a subset of the keys.
  if (bidKeys !== undefined && (!Number.isInteger(bidKeys) || bidKeys < 1_000 || bidKeys >= 2 ** 31)) {
    throw new RangeError(`bidKeys must be an integer in [1000, 2^31), got ${bidKeys}`);
  }
  return {
    events,
    stream: {
      seed,
      keys,
      eventsPerSecond: 100_000,
      outOfOrdernessMs: 200,
      baseTimestamp: BASE_TIMESTAMP,
    },
    bids: {
      seed,
      auctions: bidKeys ?? DEFAULT_AUCTIONS,
      hotAuctions: 100,
      hotAuctionPercent: 50,
      bidders: bidKeys ?? DEFAULT_BIDDERS,
      hotBidders: 1_000,
      hotBidderPercent: 10,
      eventsPerSecond: 10_000,
      outOfOrdernessMs: 200,
      baseTimestamp: BASE_TIMESTAMP,
    },
    stateless: { multiplier: 3, offset: 1, dropModulus: 4 },
    tumbling: { sizeMs: 1_000 },
    sliding: { sizeMs: 10_000, slideMs: 2_000 },
    session: { gapMs: 10_000 },
    cep: { probeBelow: 10, largeAtLeast: 500, drainAtLeast: 900, withinMs: 2_000 },
    batching: { size: 8, timeoutMs: 1_000 },
    nexmark: {
      seed,
      activePersons: 1_000,
      activeAuctions: 1_000,
      eventsPerSecond: 10_000,
      outOfOrdernessMs: 200,
      baseTimestamp: BASE_TIMESTAMP,
    },
    nexmarkWindow: { sizeMs: 10_000 },
    parallelism,
  };
}

/** Epoch-aligned window start for `ts` (Flink's TimeWindow.getWindowStartWithOffset with offset 0). */
export function windowStart(ts: number, sizeMs: number): number {
  return ts - (ts % sizeMs);
}
