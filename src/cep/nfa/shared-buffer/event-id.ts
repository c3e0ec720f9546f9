// EventId: how the shared buffer orders the events it stores (Flink's EventId: timestamp, then arrival).

/**
 * Identifies an event in the shared buffer: its timestamp and a per-key arrival counter. Ordered by timestamp, then
 * counter — the order skip strategies prune by and partial matches are queued in. Flink numbers events per
 * timestamp (0, 1, ...) and forgets the counters as time passes; a per-key counter orders the events of one
 * timestamp the same way and needs no clean-up. The stored event ({@link SharedBufferEvent}) is its own id, so a
 * partial match's start event is a direct reference, not a key to look up.
 */
export interface EventId {
  readonly id: number;
  readonly timestamp: number;
}

/** Orders event ids as Flink's `EventId.COMPARATOR`: by timestamp, then id. */
export function compareEventIds(a: EventId, b: EventId): number {
  if (a.timestamp !== b.timestamp) {
    // Stryker disable next-line EqualityOperator: the timestamps differ here, so < and <= agree
    return a.timestamp < b.timestamp ? -1 : 1;
  }
  return a.id - b.id;
}

export function eventIdEquals(a: EventId | null, b: EventId | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  return a.id === b.id && a.timestamp === b.timestamp;
}

/** `timestamp#id`, for error messages. */
export function eventIdToString(e: EventId): string {
  return `${e.timestamp}#${e.id}`;
}
