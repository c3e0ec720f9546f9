// How limit-p2 generates, routes and writes each input's records: the generator's events and bids as flat Float64
// fields, written and read by hand (as Weir's declared record types cross threads), the object built on the reader.

import { type Bid, type Event, fillBid, fillEvent, newBid, newEvent } from '../../workloads/generator.ts';
import type { WorkloadParams } from '../../workloads/params.ts';

/**
 * One record type's part in the exchange. `width` Float64 fields per record, the first an id (never negative: a
 * negative first field marks a watermark or the end) and the last the event time.
 */
export interface RecordCodec<R> {
  readonly width: number;
  create(): R;
  /** Writes input record `index` into `out` (the generator). */
  fill(params: WorkloadParams, index: number, out: R): R;
  /** The key the workload is keyed by. */
  key(record: R): number;
  ts(record: R): number;
  outOfOrdernessMs(params: WorkloadParams): number;
  eventsPerSecond(params: WorkloadParams): number;
  write(data: Float64Array, at: number, record: R): void;
  /** Reads the record at `at` into `out` and returns it. */
  read(data: Float64Array, at: number, out: R): R;
}

/** The generic stream's events, keyed by key: {id, key, value, ts}. */
export const EVENT_CODEC: RecordCodec<Event> = {
  width: 4,
  create: newEvent,
  fill: (params, index, out) => fillEvent(params.stream, index, out),
  key: (event) => event.key,
  ts: (event) => event.ts,
  outOfOrdernessMs: (params) => params.stream.outOfOrdernessMs,
  eventsPerSecond: (params) => params.stream.eventsPerSecond,
  write(data, at, event) {
    data[at] = event.id;
    data[at + 1] = event.key;
    data[at + 2] = event.value;
    data[at + 3] = event.ts;
  },
  read(data, at, out) {
    // Integral fields back to small integers, so Maps key them as the generator's own values.
    out.id = (data[at] as number) | 0;
    out.key = (data[at + 1] as number) | 0;
    out.value = (data[at + 2] as number) | 0;
    out.ts = data[at + 3] as number;
    return out;
  },
};

/** The bid stream, keyed by bidder (sessions): {id, auction, bidder, price, ts}. */
export const BID_BY_BIDDER_CODEC: RecordCodec<Bid> = {
  width: 5,
  create: newBid,
  fill: (params, index, out) => fillBid(params.bids, index, out),
  key: (bid) => bid.bidder,
  ts: (bid) => bid.ts,
  outOfOrdernessMs: (params) => params.bids.outOfOrdernessMs,
  eventsPerSecond: (params) => params.bids.eventsPerSecond,
  write(data, at, bid) {
    data[at] = bid.id;
    data[at + 1] = bid.auction;
    data[at + 2] = bid.bidder;
    data[at + 3] = bid.price;
    data[at + 4] = bid.ts;
  },
  read(data, at, out) {
    out.id = (data[at] as number) | 0;
    out.auction = (data[at + 1] as number) | 0;
    out.bidder = (data[at + 2] as number) | 0;
    out.price = (data[at + 3] as number) | 0;
    out.ts = data[at + 4] as number;
    return out;
  },
};

/** Float64 fields of the widest record, which the rings are sized for. */
export const MAX_WIDTH = 5;
