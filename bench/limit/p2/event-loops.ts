// The per-key logic of limit-p2's workloads on one thread: the limit's loops (bench/limit/*.ts), each cut at the
// point where a record reaches its key's thread, so a run of both threads gives exactly the limit's result.

import {
  ChecksumAccumulator,
  hashCepMatch,
  hashRollingCount,
  hashStateless,
  hashWindowAggregate,
} from '../../workloads/checksum.ts';
import { type Event, newEvent } from '../../workloads/generator.ts';
import { windowStart, type WorkloadParams } from '../../workloads/params.ts';
import { alignmentLeadMs, CHUNK, type ThreadLoop } from './thread-loop.ts';

/** Workload 1: nothing is keyed, so nothing crosses; each thread maps and filters the events it generates. */
export class StatelessLoop implements ThreadLoop<Event> {
  readonly sink = new ChecksumAccumulator();
  private readonly multiplier: number;
  private readonly offset: number;
  private readonly dropModulus: number;

  constructor(params: WorkloadParams) {
    ({ multiplier: this.multiplier, offset: this.offset, dropModulus: this.dropModulus } = params.stateless);
  }

  newRecord(): Event {
    return newEvent();
  }

  own(event: Event): void {
    const mapped = event.value * this.multiplier + this.offset;
    if (mapped % this.dropModulus !== 0) this.sink.add(hashStateless(event.key, mapped));
  }

  received(event: Event): void {
    this.own(event);
  }

  watermark(): void {}

  finish(): void {}
}

/** Workload 2: a Map get + set per record of the thread's keys. */
export class RollingCountLoop implements ThreadLoop<Event> {
  readonly sink = new ChecksumAccumulator();
  private readonly counts = new Map<number, number>();

  newRecord(): Event {
    return newEvent();
  }

  own(event: Event): void {
    const count = (this.counts.get(event.key) ?? 0) + 1;
    this.counts.set(event.key, count);
    this.sink.add(hashRollingCount(event.key, count));
  }

  received(event: Event): void {
    this.own(event);
  }

  watermark(): void {}

  finish(): void {}
}

class Aggregate {
  count = 0;
  sum = 0;
}

/** Workload 3: per open window a Map of keys; a window fires once the thread's watermark passes its end - 1. */
export class TumblingWindowLoop implements ThreadLoop<Event> {
  readonly sink = new ChecksumAccumulator();
  private readonly size: number;
  private readonly windows = new Map<number, Map<number, Aggregate>>();
  private cachedStart = NaN;
  private cached: Map<number, Aggregate> | undefined = undefined;
  private nextFire = Infinity; // smallest end - 1 among open windows

  constructor(params: WorkloadParams) {
    this.size = params.tumbling.sizeMs;
  }

  newRecord(): Event {
    return newEvent();
  }

  own(event: Event): void {
    const start = windowStart(event.ts, this.size);
    if (start !== this.cachedStart) {
      let keys = this.windows.get(start);
      if (keys === undefined) {
        keys = new Map();
        this.windows.set(start, keys);
        if (start + this.size - 1 < this.nextFire) this.nextFire = start + this.size - 1;
      }
      this.cached = keys;
      this.cachedStart = start;
    }
    const keys = this.cached as Map<number, Aggregate>;
    let agg = keys.get(event.key);
    if (agg === undefined) {
      agg = new Aggregate();
      keys.set(event.key, agg);
    }
    agg.count++;
    agg.sum += event.value;
  }

  received(event: Event): void {
    this.own(event);
  }

  watermark(watermark: number): void {
    if (watermark >= this.nextFire) this.fireUpTo(watermark);
  }

  finish(): void {
    this.fireUpTo(Infinity);
  }

  private fireUpTo(watermark: number): void {
    const size = this.size;
    const ready = [...this.windows.keys()]
      .filter((start) => start + size - 1 <= watermark)
      .sort((a, b) => a - b);
    for (const start of ready) {
      const keys = this.windows.get(start) as Map<number, Aggregate>;
      for (const [key, agg] of keys) this.sink.add(hashWindowAggregate(key, start, agg.count, agg.sum));
      this.windows.delete(start);
    }
    this.cachedStart = NaN;
    this.cached = undefined;
    this.nextFire = Infinity;
    for (const start of this.windows.keys()) this.nextFire = Math.min(this.nextFire, start + size - 1);
  }
}

class PartialMatch {
  /** 1: waiting for large; 2: waiting for drain. */
  stage = 1;
  largeId = -1;
  constructor(
    readonly probeId: number,
    readonly probeTs: number,
  ) {}
}

/**
 * Workload 6: the limit's NFA (bench/limit/cep.ts). Events wait for the watermark in one bucket per millisecond, one
 * ring of buckets per source (each source's bucket is in id order); a released millisecond merges the two by id, so
 * each key sees its events in (timestamp, id) order, the order of one ordered stream, as the limit does.
 */
export class CepLoop implements ThreadLoop<Event> {
  readonly sink = new ChecksumAccumulator();
  private readonly probeBelow: number;
  private readonly largeAtLeast: number;
  private readonly drainAtLeast: number;
  private readonly withinMs: number;
  private readonly partials = new Map<number, PartialMatch[]>();
  private readonly ringMask: number;
  private readonly local: Event[][];
  private readonly remote: Event[][];
  private readonly pool: Event[] = [];
  private processedUpTo: number; // every event with ts <= processedUpTo has been processed
  private maxTs = -Infinity;

  constructor(params: WorkloadParams) {
    ({
      probeBelow: this.probeBelow,
      largeAtLeast: this.largeAtLeast,
      drainAtLeast: this.drainAtLeast,
      withinMs: this.withinMs,
    } = params.cep);
    // Pending timestamps span at most the bound plus how far one source's watermark can lead the other's: the
    // alignment lead and the chunk each side's watermark is late by (docs/performance.md, "The two-thread ceiling").
    // A ring of twice that never wraps onto a live bucket; buffer() checks it.
    const chunkMs = Math.ceil((CHUNK * 2 * 1000) / params.stream.eventsPerSecond);
    const span =
      params.stream.outOfOrdernessMs + 2 + alignmentLeadMs(params.stream.eventsPerSecond) + 2 * chunkMs;
    const size = 1 << Math.ceil(Math.log2(2 * span));
    this.ringMask = size - 1;
    this.local = Array.from({ length: size }, () => []);
    this.remote = Array.from({ length: size }, () => []);
    this.processedUpTo = params.stream.baseTimestamp - 1; // no event is earlier than the base
  }

  newRecord(): Event {
    return this.pool.pop() ?? newEvent();
  }

  own(event: Event): void {
    const copy = this.pool.pop() ?? newEvent();
    copy.id = event.id;
    copy.key = event.key;
    copy.value = event.value;
    copy.ts = event.ts;
    this.buffer(this.local, copy);
  }

  received(event: Event): void {
    this.buffer(this.remote, event);
  }

  watermark(watermark: number): void {
    if (watermark > this.processedUpTo) this.advance(watermark);
  }

  finish(): void {
    if (this.maxTs > this.processedUpTo) this.advance(this.maxTs); // the final watermark releases everything
  }

  private buffer(ring: Event[][], event: Event): void {
    const ts = event.ts;
    if (ts - this.processedUpTo > this.ringMask)
      throw new Error(
        `limit-p2 cep: event at ${ts} is beyond the ring (processed up to ${this.processedUpTo})`,
      );
    if (ts > this.maxTs) this.maxTs = ts;
    (ring[ts & this.ringMask] as Event[]).push(event);
  }

  private advance(watermark: number): void {
    const mask = this.ringMask;
    for (let t = this.processedUpTo + 1; t <= watermark; t++) {
      const a = this.local[t & mask] as Event[];
      const b = this.remote[t & mask] as Event[];
      let i = 0;
      let j = 0;
      while (i < a.length || j < b.length) {
        const event =
          j >= b.length || (i < a.length && (a[i] as Event).id < (b[j] as Event).id)
            ? (a[i++] as Event)
            : (b[j++] as Event);
        this.process(event);
        this.pool.push(event);
      }
      a.length = 0;
      b.length = 0;
    }
    this.processedUpTo = watermark;
  }

  private process(event: Event): void {
    const { partials, withinMs, largeAtLeast, drainAtLeast } = this;
    const list = partials.get(event.key);
    if (list !== undefined) {
      let kept = 0;
      for (let j = 0; j < list.length; j++) {
        const partial = list[j] as PartialMatch;
        if (event.ts - partial.probeTs >= withinMs) continue; // timed out: pruned before the event
        if (partial.stage === 1) {
          if (event.value >= largeAtLeast) {
            partial.stage = 2;
            partial.largeId = event.id;
          }
        } else if (event.value >= drainAtLeast) {
          this.sink.add(hashCepMatch(event.key, partial.probeId, partial.largeId, event.id));
          continue; // complete: leaves the NFA
        }
        list[kept++] = partial;
      }
      list.length = kept; // an emptied list stays in the Map: V8's Map is slow under delete/insert churn
    }
    if (event.value < this.probeBelow) {
      const partial = new PartialMatch(event.id, event.ts);
      if (list === undefined) partials.set(event.key, [partial]);
      else list.push(partial);
    }
  }
}
