// The deterministic input of every workload: event i is a pure function of (seed, i), the same in
// TypeScript and in Java (bench/flink/.../Generator.java), so every system sees byte-identical data.
//
// Event time: ts = base + floor(i * 1000 / eventsPerSecond) + jitter, jitter in [0, outOfOrdernessMs).
// An event can trail the largest timestamp seen before it by at most outOfOrdernessMs - 1, and a bounded
// out-of-orderness watermark is (max seen - outOfOrdernessMs - 1), so no event is ever late: results do
// not depend on when watermarks are emitted. Indices must stay below 2^31 (see draw()).

import { below, draw } from './hash.ts';

/** Parameters of the generic keyed stream (workloads 1, 2, 3, 6, 7). */
export interface EventStreamConfig {
  readonly seed: number;
  /** Number of distinct keys: key = uniform in [0, keys). */
  readonly keys: number;
  /** Event-time rate: how many events one second of event time holds. */
  readonly eventsPerSecond: number;
  /** Bound of the out-of-orderness: jitter is in [0, outOfOrdernessMs). */
  readonly outOfOrdernessMs: number;
  /** Event time of event 0 before jitter, in epoch milliseconds. */
  readonly baseTimestamp: number;
}

/** A keyed event: a card payment, a click, a sensor reading. `value` is uniform in [0, 1000). */
export interface Event {
  id: number;
  key: number;
  value: number;
  ts: number;
}

/** Creates an Event with fields in a fixed order, so every Event shares one hidden class. */
export function newEvent(): Event {
  return { id: 0, key: 0, value: 0, ts: 0 };
}

/** Writes event `index` into `out` and returns it: the allocation-free form for hot loops. */
export function fillEvent(config: EventStreamConfig, index: number, out: Event): Event {
  const seed = config.seed;
  out.id = index;
  out.key = below(draw(seed, index, 1), config.keys);
  out.value = below(draw(seed, index, 2), 1000);
  out.ts = eventTime(config.baseTimestamp, config.eventsPerSecond, config.outOfOrdernessMs, seed, index, 3);
  return out;
}

/** Event `index` as a fresh object, for pipelines that keep or forward events. */
export function generateEvent(config: EventStreamConfig, index: number): Event {
  return fillEvent(config, index, newEvent());
}

/** Parameters of the Nexmark-like bid stream (workloads 4 and 5). */
export interface BidStreamConfig {
  readonly seed: number;
  readonly auctions: number;
  /** The first `hotAuctions` auction ids receive `hotAuctionPercent` % of the bids (Nexmark's hot items). */
  readonly hotAuctions: number;
  readonly hotAuctionPercent: number;
  readonly bidders: number;
  readonly hotBidders: number;
  readonly hotBidderPercent: number;
  readonly eventsPerSecond: number;
  readonly outOfOrdernessMs: number;
  readonly baseTimestamp: number;
}

/** Nexmark's Bid with the fields q5 and q11 read (and price, for realism of record size). */
export interface Bid {
  id: number;
  auction: number;
  bidder: number;
  price: number;
  ts: number;
}

export function newBid(): Bid {
  return { id: 0, auction: 0, bidder: 0, price: 0, ts: 0 };
}

/** Writes bid `index` into `out` and returns it. */
export function fillBid(config: BidStreamConfig, index: number, out: Bid): Bid {
  const seed = config.seed;
  out.id = index;
  out.auction =
    below(draw(seed, index, 11), 100) < config.hotAuctionPercent
      ? below(draw(seed, index, 12), config.hotAuctions)
      : below(draw(seed, index, 12), config.auctions);
  out.bidder =
    below(draw(seed, index, 13), 100) < config.hotBidderPercent
      ? below(draw(seed, index, 14), config.hotBidders)
      : below(draw(seed, index, 14), config.bidders);
  out.price = below(draw(seed, index, 15), 10_000) + 1;
  out.ts = eventTime(config.baseTimestamp, config.eventsPerSecond, config.outOfOrdernessMs, seed, index, 16);
  return out;
}

/** Bid `index` as a fresh object. */
export function generateBid(config: BidStreamConfig, index: number): Bid {
  return fillBid(config, index, newBid());
}

/**
 * base + floor(index * 1000 / eventsPerSecond) + jitter. The double division is exact enough: the
 * quotient is at least 1/eventsPerSecond away from the next integer, far above the rounding error,
 * so it floors like Java's long division.
 */
function eventTime(
  base: number,
  eventsPerSecond: number,
  bound: number,
  seed: number,
  index: number,
  salt: number,
): number {
  return base + Math.floor((index * 1000) / eventsPerSecond) + below(draw(seed, index, salt), bound);
}

/**
 * Parameters of the Nexmark event stream (workload q8): persons, auctions and bids interleaved in Nexmark's
 * proportions, 1 person : 3 auctions : 46 bids in every 50 events, ids counted per kind as Nexmark counts them.
 */
export interface NexmarkStreamConfig {
  readonly seed: number;
  /** An auction's seller and a bid's bidder are among this many most recent persons (Nexmark's active people). */
  readonly activePersons: number;
  /** A bid's auction is among this many most recent auctions (Nexmark's in-flight auctions). */
  readonly activeAuctions: number;
  readonly eventsPerSecond: number;
  readonly outOfOrdernessMs: number;
  readonly baseTimestamp: number;
}

/** Events per proportion cycle: 1 person, 3 auctions, 46 bids. */
export const NEXMARK_CYCLE = 50;
export const NEXMARK_PERSONS_PER_CYCLE = 1;
export const NEXMARK_AUCTIONS_PER_CYCLE = 3;

export const PERSON = 0;
export const AUCTION = 1;
export const BID = 2;

/** Nexmark's first and last names; a person's name is one of each. */
export const FIRST_NAMES = [
  'Peter',
  'Paul',
  'Luke',
  'John',
  'Saul',
  'Vicky',
  'Kate',
  'Julie',
  'Sarah',
  'Deiter',
  'Walter',
];
export const LAST_NAMES = [
  'Shultz',
  'Abrams',
  'Spencer',
  'White',
  'Bartels',
  'Walton',
  'Smith',
  'Jones',
  'Noris',
];

/**
 * One Nexmark event, flat: `kind` says which fields mean something. A person: id, name. An auction: id, seller. A
 * bid: auction, bidder, price (id is the event index). Every kind: ts.
 */
export interface NexmarkEvent {
  kind: number;
  id: number;
  name: string;
  seller: number;
  auction: number;
  bidder: number;
  price: number;
  ts: number;
}

export function newNexmarkEvent(): NexmarkEvent {
  return { kind: 0, id: 0, name: '', seller: 0, auction: 0, bidder: 0, price: 0, ts: 0 };
}

/**
 * Writes Nexmark event `index` into `out` and returns it. In cycle c = floor(index / 50), offset 0 is person c,
 * offsets 1-3 are auctions 3c .. 3c + 2, the rest are bids; a seller or bidder is drawn among the persons already
 * generated (at most `activePersons` back), a bid's auction among the auctions already generated.
 */
export function fillNexmarkEvent(
  config: NexmarkStreamConfig,
  index: number,
  out: NexmarkEvent,
): NexmarkEvent {
  const seed = config.seed;
  const cycle = Math.floor(index / NEXMARK_CYCLE);
  const offset = index - cycle * NEXMARK_CYCLE;
  const lastPerson = cycle * NEXMARK_PERSONS_PER_CYCLE;
  if (offset < NEXMARK_PERSONS_PER_CYCLE) {
    out.kind = PERSON;
    out.id = lastPerson;
    out.name = `${FIRST_NAMES[below(draw(seed, index, 21), FIRST_NAMES.length)]} ${LAST_NAMES[below(draw(seed, index, 22), LAST_NAMES.length)]}`;
    out.seller = 0;
    out.auction = 0;
    out.bidder = 0;
    out.price = 0;
  } else if (offset < NEXMARK_PERSONS_PER_CYCLE + NEXMARK_AUCTIONS_PER_CYCLE) {
    out.kind = AUCTION;
    out.id = cycle * NEXMARK_AUCTIONS_PER_CYCLE + offset - NEXMARK_PERSONS_PER_CYCLE;
    out.name = '';
    out.seller = Math.max(0, lastPerson - below(draw(seed, index, 23), config.activePersons));
    out.auction = 0;
    out.bidder = 0;
    out.price = 0;
  } else {
    out.kind = BID;
    out.id = index;
    out.name = '';
    out.seller = 0;
    const lastAuction = cycle * NEXMARK_AUCTIONS_PER_CYCLE + NEXMARK_AUCTIONS_PER_CYCLE - 1;
    out.auction = Math.max(0, lastAuction - below(draw(seed, index, 24), config.activeAuctions));
    out.bidder = Math.max(0, lastPerson - below(draw(seed, index, 25), config.activePersons));
    out.price = below(draw(seed, index, 26), 10_000) + 1;
  }
  out.ts = eventTime(config.baseTimestamp, config.eventsPerSecond, config.outOfOrdernessMs, seed, index, 27);
  return out;
}

/** Nexmark event `index` as a fresh object. */
export function generateNexmarkEvent(config: NexmarkStreamConfig, index: number): NexmarkEvent {
  return fillNexmarkEvent(config, index, newNexmarkEvent());
}
