// EventId and NodeId: how the shared buffer names a stored event and an (event, stage) entry (Flink's EventId/NodeId).

/**
 * Identifies an event in the shared buffer: its timestamp and a counter among the events of that timestamp.
 * Ordered by timestamp, then counter — the order skip strategies prune by. `key` is the string the keyed MapState
 * indexes by (computed once when the event is registered).
 */
export interface EventId {
  readonly id: number;
  readonly timestamp: number;
  readonly key: string;
}

export function newEventId(id: number, timestamp: number): EventId {
  return { id, timestamp, key: `${timestamp}#${id}` };
}

/** Orders event ids as Flink's `EventId.COMPARATOR`: by timestamp, then id. */
export function compareEventIds(a: EventId, b: EventId): number {
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp ? -1 : 1;
  return a.id - b.id;
}

export function eventIdEquals(a: EventId | null, b: EventId | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  return a.id === b.id && a.timestamp === b.timestamp;
}

/** An entry of the shared buffer: an event taken by a stage (`pageName`, the user's stage name). */
export interface NodeId {
  readonly eventId: EventId;
  readonly pageName: string;
  readonly key: string;
}

export function newNodeId(eventId: EventId, pageName: string): NodeId {
  return { eventId, pageName, key: `${eventId.key}|${pageName}` };
}

export function nodeIdEquals(a: NodeId | null, b: NodeId | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  return a.key === b.key;
}
