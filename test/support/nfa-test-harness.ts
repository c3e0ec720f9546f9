// Test support: drives a pure NFA over timestamped events like Flink's NFATestHarness, on the real heap backend.
import { HeapKeyedStateBackend } from '../../src/state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../../src/state/key-group-range.ts';
import type { Pattern } from '../../src/cep/pattern/pattern.ts';
import { compilePattern } from '../../src/cep/nfa/compiler/nfa-compiler.ts';
import { NFA, type Match, type TimedOutMatch } from '../../src/cep/nfa/nfa.ts';
import type { NFAState } from '../../src/cep/nfa/nfa-state.ts';
import type { AfterMatchSkipStrategy } from '../../src/cep/nfa/after-match-skip-strategy.ts';
import { SharedBuffer } from '../../src/cep/nfa/shared-buffer/shared-buffer.ts';
import { SharedBufferAccessor } from '../../src/cep/nfa/shared-buffer/shared-buffer-accessor.ts';

/** The event type of Flink's CEP tests: `Event(id, name, price)`. */
export class Event {
  constructor(
    readonly id: number,
    readonly name: string,
    readonly price: number,
  ) {}

  toString(): string {
    return `Event(${this.id}, ${this.name}, ${this.price})`;
  }
}

/** Flink's `SubEvent(id, name, price, volume)`. */
export class SubEvent extends Event {
  constructor(
    id: number,
    name: string,
    price: number,
    readonly volume: number,
  ) {
    super(id, name, price);
  }
}

/**
 * Runs a pattern's NFA for one key: before each event `advanceTime(timestamp)` (collecting timeouts and pending
 * matches), then `process`. Matches come back as Flink's tests flatten them: the events of all stages in order.
 */
export class NFATestHarness<T> {
  readonly backend = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0);
  readonly buffer: SharedBuffer<T>;
  readonly accessor: SharedBufferAccessor<T>;
  readonly nfa: NFA<T>;
  nfaState: NFAState;
  readonly skip: AfterMatchSkipStrategy;
  readonly timedOut: TimedOutMatch<T>[] = [];
  processingTime = 0;

  constructor(pattern: Pattern<T, any, any, any>, handleTimeout = false) {
    this.backend.setCurrentKey('key');
    this.buffer = new SharedBuffer<T>(this.backend);
    this.accessor = new SharedBufferAccessor<T>(this.buffer);
    const compiled = compilePattern(pattern);
    this.nfa = new NFA(compiled, handleTimeout);
    this.skip = compiled.afterMatchSkipStrategy;
    this.nfaState = this.nfa.createInitialNFAState();
  }

  /** Feeds one event; returns the matches (as maps) it produced, those completed by time passing first. */
  consume(event: T, timestamp: number): Match<T>[] {
    const advanced = this.nfa.advanceTime(this.accessor, this.nfaState, timestamp, this.skip);
    this.timedOut.push(...advanced.timedOut);
    const matches = this.nfa.process(this.accessor, this.nfaState, event, timestamp, this.skip, {
      currentProcessingTime: () => this.processingTime,
    });
    return [...advanced.matches, ...matches];
  }

  /** Advances time only (a watermark); returns completed pending matches. */
  advance(timestamp: number): Match<T>[] {
    const advanced = this.nfa.advanceTime(this.accessor, this.nfaState, timestamp, this.skip);
    this.timedOut.push(...advanced.timedOut);
    return advanced.matches;
  }

  /** Feeds `[event, timestamp]` pairs; returns every match as maps. */
  feedMaps(records: readonly (readonly [T, number])[]): Match<T>[] {
    const out: Match<T>[] = [];
    for (const [e, ts] of records) out.push(...this.consume(e, ts));
    return out;
  }

  /** Feeds `[event, timestamp]` pairs; returns every match flattened to its events, stage by stage. */
  feed(records: readonly (readonly [T, number])[]): T[][] {
    return this.feedMaps(records).map(flatten);
  }
}

export function flatten<T>(m: Match<T>): T[] {
  const out: T[] = [];
  for (const k of Object.keys(m)) out.push(...m[k]!);
  return out;
}

/** Feeds events with timestamps 1, 2, 3, ... */
export function withTimestamps<T>(events: readonly T[]): [T, number][] {
  return events.map((e, i) => [e, i + 1]);
}

/** Sorts lists of events for order-insensitive comparison (Flink's `comparePatterns`). */
export function sortMatches<T extends { id: number; name: string; price: number }>(matches: T[][]): string[] {
  return matches.map((m) => m.map((e) => `${e.name}:${e.id}:${e.price}`).join(' ')).sort();
}

/**
 * Matches as sets of events, for Flink's `comparePatterns` / `compareMaps`: the order inside a match and between
 * matches is ignored.
 */
export function matchSets<T extends { id: number; name: string; price: number }>(matches: T[][]): string[] {
  return matches
    .map((m) =>
      m
        .map((e) => `${e.name}:${e.id}:${e.price}`)
        .sort()
        .join(' '),
    )
    .sort();
}
