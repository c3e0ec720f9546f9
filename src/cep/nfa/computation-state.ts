// ComputationState: one partial match — the NFA state it waits in and where its events sit in the shared buffer.
import { deweyEquals, START_VERSION, type DeweyNumber } from './dewey-number.ts';
import { compareEventIds, eventIdEquals } from './shared-buffer/event-id.ts';
import type { SharedBufferEvent, SharedBufferNode } from './shared-buffer/shared-buffer.ts';

/**
 * A partial match (Flink's `ComputationState`): the name of the NFA state it is in, its Dewey version, the last
 * shared-buffer entry it took (its events are read back from there), the timestamps of its first and latest event
 * and its first event. Plain data, immutable: a partial match that only skips an event keeps its object, so the
 * common case allocates nothing. Created only by the two functions below (one shape for V8).
 */
export interface ComputationState {
  readonly currentStateName: string;
  readonly version: DeweyNumber;
  readonly previousBufferEntry: SharedBufferNode<any> | null;
  /** Timestamp of the first event, or -1 for a start state. */
  readonly startTimestamp: number;
  /** Timestamp of the latest taken event, or -1 (used by `within(..., PREVIOUS_AND_CURRENT)`). */
  readonly previousTimestamp: number;
  readonly startEventId: SharedBufferEvent<any> | null;
}

export function createStartState(name: string, version: DeweyNumber = START_VERSION): ComputationState {
  return {
    currentStateName: name,
    version,
    previousBufferEntry: null,
    startTimestamp: -1,
    previousTimestamp: -1,
    startEventId: null,
  };
}

export function createState(
  name: string,
  previousEntry: SharedBufferNode<any> | null,
  version: DeweyNumber,
  startTimestamp: number,
  previousTimestamp: number,
  startEventId: SharedBufferEvent<any> | null,
): ComputationState {
  return {
    currentStateName: name,
    version,
    previousBufferEntry: previousEntry,
    startTimestamp,
    previousTimestamp,
    startEventId,
  };
}

/** Field-wise equality, as Flink's `ComputationState.equals`. */
export function computationStateEquals(a: ComputationState, b: ComputationState): boolean {
  // Stryker disable next-line ConditionalExpression: the same object has equal fields; the check only skips comparing them
  if (a === b) return true;
  return (
    a.currentStateName === b.currentStateName &&
    a.startTimestamp === b.startTimestamp &&
    a.previousTimestamp === b.previousTimestamp &&
    deweyEquals(a.version, b.version) &&
    // one entry object per live (event, stage), so identity is Flink's NodeId equality
    a.previousBufferEntry === b.previousBufferEntry &&
    eventIdEquals(a.startEventId, b.startEventId)
  );
}

/**
 * Orders partial matches by their first event; start states (no first event) last (Flink's
 * `NFAState.COMPUTATION_STATE_COMPARATOR`). Ties are left to the heap, as in Flink.
 */
export function compareComputationStates(a: ComputationState, b: ComputationState): number {
  const x = a.startEventId;
  const y = b.startEventId;
  if (x === null) return y === null ? 0 : 1;
  if (y === null) return -1;
  return compareEventIds(x, y);
}
