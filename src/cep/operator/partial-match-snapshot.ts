// PartialMatchSnapshot: a CEP subtask's live partial matches per key, as the REST API and the dashboard show them.
import { describeRecord } from '../../core/errors.ts';
import { displayRecord, type RecordDisplay } from '../../core/record-display.ts';
import type { ComputationState } from '../nfa/computation-state.ts';
import type { SharedBufferAccessor } from '../nfa/shared-buffer/shared-buffer-accessor.ts';
import type { SharedBufferNode } from '../nfa/shared-buffer/shared-buffer.ts';

/** What a partial-match snapshot shows, and how much of it. */
export interface PartialMatchQuery extends RecordDisplay {
  /** Keys shown per subtask (the keys with the oldest partial matches first). */
  readonly maxKeys: number;
  /** Events shown per partial match (the first ones; `numEvents` tells how many it holds). */
  readonly maxEvents: number;
}

/** 100 keys per subtask, 20 events per partial match, records cut after 200 characters. */
export const DEFAULT_PARTIAL_MATCH_QUERY: PartialMatchQuery = {
  maxKeys: 100,
  maxEvents: 20,
  showRecords: true,
  maxRecordLength: 200,
};

/** An event a partial match took: the stage that took it, its timestamp and the record (null when hidden). */
export interface MatchedEvent {
  readonly stage: string;
  readonly timestamp: number;
  readonly record: string | null;
}

/** One partial match: the NFA state it waits in, when it started, and the events it took so far, in order. */
export interface PartialMatchView {
  /** The NFA state: a stage's name, or `name:N` for the further states a stage compiles to. */
  readonly state: string;
  /** Timestamp of its first event. */
  readonly startTimestamp: number;
  /** Events it holds (more than `events` when cut at `maxEvents`). */
  readonly numEvents: number;
  readonly events: readonly MatchedEvent[];
}

/** A key's partial matches (oldest first) and the elements it has waiting for the watermark or timer. */
export interface KeyPartialMatches {
  /** The key as JSON text, cut as records are. */
  readonly key: string;
  readonly queuedEvents: number;
  readonly partialMatches: readonly PartialMatchView[];
}

/** One subtask's snapshot: the keys with partial matches or queued events (`numKeys`), of which `keys` shows some. */
export interface SubtaskPartialMatches {
  readonly subtask: number;
  readonly numKeys: number;
  /** Whether more keys hold partial matches than `keys` shows. */
  readonly truncated: boolean;
  readonly keys: readonly KeyPartialMatches[];
}

/** A key found holding something, before it is rendered. */
export interface KeyMatchState {
  readonly key: unknown;
  /** Its partial matches that took an event (start states left out). */
  readonly partialMatches: readonly ComputationState[];
  readonly queuedEvents: number;
}

/**
 * Renders what the CEP operator found per key: keys ordered by their oldest partial match (then by key text; keys
 * with only queued events last), the first `maxKeys` of them, each partial match's events read back from the shared
 * buffer along its first path (the path a match would be built from). O(keys log keys + events shown).
 */
export function snapshotPartialMatches<V>(
  subtask: number,
  found: readonly KeyMatchState[],
  accessor: SharedBufferAccessor<V>,
  query: PartialMatchQuery,
): SubtaskPartialMatches {
  const keyDisplay: RecordDisplay = { showRecords: true, maxRecordLength: query.maxRecordLength };
  const ordered = found
    .map((f) => ({
      found: f,
      key: displayRecord(describeRecord(f.key, Number.POSITIVE_INFINITY), keyDisplay),
      oldest: f.partialMatches.reduce((m, s) => Math.min(m, s.startTimestamp), Number.POSITIVE_INFINITY),
    }))
    .sort((a, b) => a.oldest - b.oldest || compareText(a.key, b.key));
  // Stryker disable next-line ArrayDeclaration: extractFirstPath writes the slots it returns before they are read
  const path: SharedBufferNode<V>[] = [];
  const keys = ordered.slice(0, Math.max(0, query.maxKeys)).map((k): KeyPartialMatches => ({
    key: k.key,
    queuedEvents: k.found.queuedEvents,
    partialMatches: [...k.found.partialMatches]
      .sort(
        (a, b) => a.startTimestamp - b.startTimestamp || compareText(a.currentStateName, b.currentStateName),
      )
      .map((s) => describePartialMatch(s, accessor, query, path)),
  }));
  return { subtask, numKeys: found.length, truncated: keys.length < found.length, keys };
}

/** Orders text by UTF-16 code units, as `<` does. */
function compareText(a: string, b: string): number {
  if (a < b) return -1;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: V8's sort reads a comparison only as negative or not, so 1 and 0 order alike
  return a > b ? 1 : 0;
}

function describePartialMatch<V>(
  state: ComputationState,
  accessor: SharedBufferAccessor<V>,
  query: PartialMatchQuery,
  path: SharedBufferNode<V>[],
): PartialMatchView {
  const n =
    // Stryker disable next-line ConditionalExpression: a partial match shown took an event, so it has an entry
    state.previousBufferEntry === null
      ? 0
      : accessor.extractFirstPath(state.previousBufferEntry, state.version, path);
  const events: MatchedEvent[] = [];
  // the path holds the latest entry first
  for (let i = n - 1; i >= 0 && events.length < query.maxEvents; i--) {
    const entry = path[i]!;
    events.push({
      stage: entry.pageName,
      timestamp: entry.event.timestamp,
      record: query.showRecords
        ? displayRecord(describeRecord(entry.event.element, Number.POSITIVE_INFINITY), query)
        : null,
    });
  }
  path.length = 0;
  return { state: state.currentStateName, startTimestamp: state.startTimestamp, numEvents: n, events };
}
