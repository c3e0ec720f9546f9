// AfterMatchSkipStrategy: which overlapping partial and completed matches to drop once a match is emitted.
import {
  compareComputationStates,
  computationStateEquals,
  type ComputationState,
} from './computation-state.ts';
import { removeIf, type JavaPriorityQueue } from './java-priority-queue.ts';
import { compareEventIds, eventIdEquals, eventIdToString, type EventId } from './shared-buffer/event-id.ts';
import type { EventIdMatch, SharedBufferAccessor } from './shared-buffer/shared-buffer-accessor.ts';

/** The strategies, by Flink's names. */
type Kind = 'NO_SKIP' | 'SKIP_TO_NEXT' | 'SKIP_PAST_LAST_EVENT' | 'SKIP_TO_FIRST' | 'SKIP_TO_LAST';

/**
 * What happens to other matches after a match is found (Flink's `AfterMatchSkipStrategy` and subclasses). Every
 * partial or completed match whose first event is before the pruning point is discarded:
 *
 * - `noSkip()`: nothing is discarded; every match is emitted.
 * - `skipToNext()`: matches that start with the same event as the found one are discarded.
 * - `skipPastLastEvent()`: matches that start inside the found match are discarded.
 * - `skipToFirst(name)` / `skipToLast(name)`: matches that start before the first / last event of stage `name` in
 *   the found match are discarded; `throwExceptionOnMiss()` makes a match without that stage (or a skip to the
 *   match's own first event) an error instead of a no-op.
 *
 * With a strategy other than noSkip, a completed match is held back until no partial match that started earlier
 * is still running, so that one can still be pruned by it (FlinkCEP's ordering guarantee).
 *
 * @example
 * Pattern.begin<Ev>('start', AfterMatchSkipStrategy.skipPastLastEvent())
 */
export class AfterMatchSkipStrategy {
  private constructor(
    /** @internal */
    readonly kind: Kind,
    private readonly patternName: string | undefined,
    readonly shouldThrowException: boolean,
  ) {}

  static noSkip(): AfterMatchSkipStrategy {
    return NO_SKIP;
  }

  static skipToNext(): AfterMatchSkipStrategy {
    return SKIP_TO_NEXT;
  }

  static skipPastLastEvent(): AfterMatchSkipStrategy {
    return SKIP_PAST_LAST;
  }

  static skipToFirst(patternName: string): AfterMatchSkipStrategy {
    return new AfterMatchSkipStrategy('SKIP_TO_FIRST', checkName(patternName), false);
  }

  static skipToLast(patternName: string): AfterMatchSkipStrategy {
    return new AfterMatchSkipStrategy('SKIP_TO_LAST', checkName(patternName), false);
  }

  /** For skipToFirst / skipToLast: fail when the stage is missing from a match, instead of not skipping. */
  throwExceptionOnMiss(): AfterMatchSkipStrategy {
    if (this.kind !== 'SKIP_TO_FIRST' && this.kind !== 'SKIP_TO_LAST') return this;
    return new AfterMatchSkipStrategy(this.kind, this.patternName, true);
  }

  /** The stage a skipTo strategy refers to. */
  getPatternName(): string | undefined {
    return this.patternName;
  }

  /** Whether matches must be held back and pruned (every strategy except noSkip). */
  isSkipStrategy(): boolean {
    return this.kind !== 'NO_SKIP';
  }

  /**
   * Discards (and releases in the shared buffer) the matches of `queue` that the found match `matchedResult`
   * prunes.
   * @internal The NFA calls it.
   */
  prune(
    queue: JavaPriorityQueue<ComputationState>,
    matchedResult: readonly EventIdMatch[],
    accessor: SharedBufferAccessor<unknown>,
  ): void {
    const pruningId = this.getPruningId(matchedResult);
    if (pruningId === null) return;
    // Stryker disable next-line ArrayDeclaration: a placeholder element equals no computation state, so it discards nothing
    const discard: ComputationState[] = [];
    for (const state of queue.items) {
      if (state.startEventId !== null && this.shouldPrune(state.startEventId, pruningId)) {
        accessor.releaseNode(state.previousBufferEntry!, state.version);
        discard.push(state);
      }
    }
    // Stryker disable next-line ConditionalExpression: removeIf with nothing to discard leaves the queue as it is
    if (discard.length === 0) return;
    // Java's removeAll: every element equal to a discarded one goes
    removeIf(queue, (e) => discard.some((d) => computationStateEquals(d, e)), compareComputationStates);
  }

  private shouldPrune(startEventId: EventId, pruningId: EventId): boolean {
    const c = compareEventIds(startEventId, pruningId);
    return this.kind === 'SKIP_TO_FIRST' || this.kind === 'SKIP_TO_LAST' ? c < 0 : c <= 0;
  }

  private getPruningId(match: readonly EventIdMatch[]): EventId | null {
    let pruningId: EventId | null = null;
    switch (this.kind) {
      case 'NO_SKIP':
        return null;
      case 'SKIP_PAST_LAST_EVENT':
        for (const m of match)
          for (const ids of m.values()) for (const id of ids) pruningId = max(pruningId, id);
        return pruningId;
      case 'SKIP_TO_NEXT':
        for (const m of match)
          for (const ids of m.values()) for (const id of ids) pruningId = min(pruningId, id);
        return pruningId;
      case 'SKIP_TO_FIRST':
      case 'SKIP_TO_LAST':
        for (const m of match) {
          const ids = m.get(this.patternName!);
          // a stage is in a match only with its events (extractPatterns adds none without)
          if (ids === undefined) {
            if (this.shouldThrowException) {
              throw new Error(
                `Could not skip to ${this.patternName}. No such element in the found match ${describe(m)}`,
              );
            }
          } else {
            pruningId = max(pruningId, ids[this.kind === 'SKIP_TO_FIRST' ? 0 : ids.length - 1]!);
          }
          if (this.shouldThrowException) {
            let startEvent: EventId | null = null;
            for (const list of m.values()) for (const id of list) startEvent = min(startEvent, id);
            // pruningId is set: a missing stage threw above
            if (eventIdEquals(pruningId, startEvent)) {
              throw new Error('Could not skip to first element of a match.');
            }
          }
        }
        return pruningId;
    }
  }

  toString(): string {
    const name =
      this.patternName !== undefined
        ? `{patternName='${this.patternName}', shouldThrowException=${this.shouldThrowException}}`
        : '';
    return `${this.kind}${name}`;
  }
}

const NO_SKIP = new (AfterMatchSkipStrategy as any)('NO_SKIP', undefined, false) as AfterMatchSkipStrategy;
const SKIP_TO_NEXT = new (AfterMatchSkipStrategy as any)(
  'SKIP_TO_NEXT',
  undefined,
  false,
) as AfterMatchSkipStrategy;
const SKIP_PAST_LAST = new (AfterMatchSkipStrategy as any)(
  'SKIP_PAST_LAST_EVENT',
  undefined,
  false,
) as AfterMatchSkipStrategy;

function max(a: EventId | null, b: EventId): EventId {
  if (a === null) return b;
  // Stryker disable next-line EqualityOperator: ids are unique per key, so only the same event compares equal
  return compareEventIds(b, a) > 0 ? b : a;
}

function min(a: EventId | null, b: EventId): EventId {
  if (a === null) return b;
  // Stryker disable next-line EqualityOperator: ids are unique per key, so only the same event compares equal
  return compareEventIds(b, a) < 0 ? b : a;
}

function checkName(name: string): string {
  if (typeof name !== 'string' || name.length === 0)
    throw new TypeError('A skip strategy needs a stage name');
  return name;
}

function describe(m: EventIdMatch): string {
  return `{${[...m].map(([k, v]) => `${k}=[${v.map(eventIdToString).join(', ')}]`).join(', ')}}`;
}
