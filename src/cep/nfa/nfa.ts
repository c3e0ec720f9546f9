// NFA: runs every partial match of a key over each event — take / ignore / proceed edges, shared buffer, timeouts.
import type { ConditionContext, Condition } from '../pattern/conditions.ts';
import type { AfterMatchSkipStrategy } from './after-match-skip-strategy.ts';
import type { CompiledPattern } from './compiler/nfa-compiler.ts';
import { NFAStateNameHandler } from './compiler/nfa-state-name-handler.ts';
import {
  compareComputationStates,
  computationStateEquals,
  createStartState,
  createState,
  type ComputationState,
} from './computation-state.ts';
import { addStage, increase, type DeweyNumber } from './dewey-number.ts';
import { newQueue, offer, offerAll, peek, poll, type JavaPriorityQueue } from './java-priority-queue.ts';
import { initialNFAState, type NFAState } from './nfa-state.ts';
import type { EventId, NodeId } from './shared-buffer/event-id.ts';
import type { EventIdMatch, SharedBufferAccessor } from './shared-buffer/shared-buffer-accessor.ts';
import type { State, StateTransition } from './state.ts';

/** A match: stage name → the events that stage accepted, in order. */
export type Match<T> = Record<string, T[]>;

/** A partial match that timed out, with the time it timed out at (first event + window, or previous + gap). */
export interface TimedOutMatch<T> {
  readonly match: Match<T>;
  readonly timestamp: number;
}

/** What conditions may ask of time besides the event's timestamp. */
export interface CepTimerService {
  currentProcessingTime(): number;
}

const EMPTY: any[] = Object.freeze([] as any[]) as any[];

/**
 * The non-deterministic finite automaton of a pattern (Flink's `NFA`), after the SASE paper "Efficient Pattern
 * Matching over Event Streams". Pure: it holds only the compiled states; a key's matching state (`NFAState`) and
 * its events (`SharedBuffer`) are passed in, so one NFA serves every key and the state lives in keyed state.
 *
 * For each event, every partial match in the queue is walked through `computeNextStates`:
 *  1. from its state, follow PROCEED edges whose condition holds (epsilon moves) and collect the TAKE and IGNORE
 *     edges whose condition holds (the "decision graph");
 *  2. IGNORE keeps the partial match (pointing at the same buffer entry) with a new Dewey version; TAKE stores the
 *     event in the shared buffer with an edge to the previous entry and moves on; if the state after a TAKE can
 *     PROCEED to the final state, a completed match is produced as well;
 *  3. the start state always stays, so a match can begin at every event.
 * Completed matches go through the after-match skip strategy; stop states (a negative stage matched) kill their
 * branch. Timeouts and trailing `notFollowedBy` are handled by `advanceTime`, which the operator calls before each
 * timestamp and at each watermark.
 *
 * Cost per event: proportional to the live partial matches and their edges, never to the events seen before.
 */
export class NFA<T> {
  private readonly states = new Map<string, State<T>>();
  readonly windowTime: number;
  readonly windowTimes: ReadonlyMap<string, number>;
  private readonly startStateNames: string[] = [];
  private readonly context: NFAConditionContext<T>;

  constructor(
    compiled: CompiledPattern<T>,
    readonly handleTimeout: boolean,
  ) {
    for (const s of compiled.states) {
      this.states.set(s.name, s);
      if (s.isStart()) this.startStateNames.push(s.name);
    }
    this.windowTime = compiled.windowTime;
    this.windowTimes = compiled.windowTimes;
    this.context = new NFAConditionContext<T>(this);
  }

  /** The NFA's states (for tests and tools). */
  getStates(): IterableIterator<State<T>> {
    return this.states.values();
  }

  createInitialNFAState(): NFAState {
    return initialNFAState(this.startStateNames);
  }

  /**
   * Feeds one event to every partial match of `nfaState` and returns the matches it completes (after the skip
   * strategy pruned). Call {@link advanceTime} with the event's timestamp first: this method does not check
   * timeouts.
   */
  process(
    accessor: SharedBufferAccessor<T>,
    nfaState: NFAState,
    event: T,
    timestamp: number,
    skipStrategy: AfterMatchSkipStrategy,
    timerService: CepTimerService,
  ): Match<T>[] {
    const current = this.eventWrapper;
    current.event = event;
    current.timestamp = timestamp;
    current.eventId = null;
    current.accessor = accessor;
    try {
      return this.doProcess(accessor, nfaState, skipStrategy, timerService);
    } finally {
      // the event was locked once when registered; processing is over, drop that lock
      if (current.eventId !== null) accessor.releaseEvent(current.eventId);
      current.event = undefined;
      current.eventId = null;
      current.accessor = null;
    }
  }

  /**
   * Tells the NFA no event earlier than `timestamp` will come: partial matches whose window has passed time out
   * (returned if the NFA handles timeouts) and trailing `notFollowedBy` matches whose window passed complete.
   */
  advanceTime(
    accessor: SharedBufferAccessor<T>,
    nfaState: NFAState,
    timestamp: number,
    skipStrategy: AfterMatchSkipStrategy,
  ): { matches: Match<T>[]; timedOut: TimedOutMatch<T>[] } {
    let matches: Match<T>[] = EMPTY;
    let timedOut: TimedOutMatch<T>[] = EMPTY;
    const partial = nfaState.partialMatches.items;
    // fast path: nothing can time out (no window, or only start states waiting)
    if (!this.anyTimedOut(partial, timestamp)) {
      accessor.advanceTime(timestamp);
      return { matches, timedOut };
    }
    const newPartialMatches = newQueue<ComputationState>();
    const potentialMatches = newQueue<ComputationState>();
    for (const cs of partial) {
      const gap = this.windowTimes.get(cs.currentStateName);
      const timeoutForPrevious = gap !== undefined && this.isStateTimedOut(cs, timestamp, cs.previousTimestamp, gap);
      const timeoutForFirst = this.isStateTimedOut(cs, timestamp, cs.startTimestamp, this.windowTime);
      if (timeoutForPrevious || timeoutForFirst) {
        nfaState.stateChanged = true;
        if (this.getState(cs).isPending()) {
          // a trailing notFollowedBy survived its window: it completes, subject to the skip strategy
          offer(potentialMatches, cs, compareComputationStates);
          continue;
        }
        if (this.handleTimeout) {
          if (timedOut === EMPTY) timedOut = [];
          timedOut.push({
            match: accessor.materializeMatch(this.extractCurrentMatches(accessor, cs)),
            timestamp: timeoutForPrevious ? cs.previousTimestamp + gap! : cs.startTimestamp + this.windowTime,
          });
        }
        if (cs.previousBufferEntry !== null) accessor.releaseNode(cs.previousBufferEntry, cs.version);
      } else {
        offer(newPartialMatches, cs, compareComputationStates);
      }
    }
    matches = [];
    this.processMatchesAccordingToSkipStrategy(accessor, nfaState, skipStrategy, potentialMatches, newPartialMatches, matches);
    nfaState.partialMatches = newPartialMatches;
    accessor.advanceTime(timestamp);
    return { matches, timedOut };
  }

  private anyTimedOut(partial: readonly ComputationState[], timestamp: number): boolean {
    if (this.windowTime <= 0 && this.windowTimes.size === 0) return false;
    for (const cs of partial) {
      if (cs.startEventId === null) continue; // start states never time out
      if (this.isStateTimedOut(cs, timestamp, cs.startTimestamp, this.windowTime)) return true;
      const gap = this.windowTimes.get(cs.currentStateName);
      if (gap !== undefined && this.isStateTimedOut(cs, timestamp, cs.previousTimestamp, gap)) return true;
    }
    return false;
  }

  private isStateTimedOut(cs: ComputationState, timestamp: number, since: number, windowTime: number): boolean {
    return !this.isStartState(cs) && windowTime > 0 && timestamp - since >= windowTime;
  }

  private readonly eventWrapper: EventWrapper<T> = { event: undefined, timestamp: 0, eventId: null, accessor: null };

  /** Registers the current event in the shared buffer on its first TAKE (Flink's `EventWrapper`). */
  private currentEventId(): EventId {
    const w = this.eventWrapper;
    if (w.eventId === null) w.eventId = w.accessor!.registerEvent(w.event as T, w.timestamp);
    return w.eventId;
  }

  private doProcess(
    accessor: SharedBufferAccessor<T>,
    nfaState: NFAState,
    skipStrategy: AfterMatchSkipStrategy,
    timerService: CepTimerService,
  ): Match<T>[] {
    const newPartialMatches = newQueue<ComputationState>();
    const potentialMatches = newQueue<ComputationState>();
    const partial = nfaState.partialMatches.items;
    for (let i = 0; i < partial.length; i++) {
      const cs = partial[i]!;
      const newStates = this.computeNextStates(accessor, cs, timerService);
      if (newStates.length !== 1 || !computationStateEquals(newStates[0]!, cs)) nfaState.stateChanged = true;
      const csIsStart = this.isStartState(cs);
      let shouldDiscardPath = false;
      const retained: ComputationState[] = [];
      for (const ns of newStates) {
        if (csIsStart && ns.startEventId !== null) nfaState.newStartPartialMatch = true;
        const state = this.getState(ns);
        if (state.isFinal()) {
          offer(potentialMatches, ns, compareComputationStates);
        } else if (state.isStop()) {
          // a negative stage matched: this branch dies
          shouldDiscardPath = true;
          if (ns.previousBufferEntry !== null) accessor.releaseNode(ns.previousBufferEntry, ns.version);
        } else {
          retained.push(ns);
        }
      }
      if (shouldDiscardPath) {
        for (const s of retained) if (s.previousBufferEntry !== null) accessor.releaseNode(s.previousBufferEntry, s.version);
      } else {
        offerAll(newPartialMatches, retained, compareComputationStates);
      }
    }
    if (potentialMatches.items.length > 0) nfaState.stateChanged = true;
    const result: Match<T>[] = [];
    this.processMatchesAccordingToSkipStrategy(accessor, nfaState, skipStrategy, potentialMatches, newPartialMatches, result);
    nfaState.partialMatches = newPartialMatches;
    return result;
  }

  /**
   * Emits completed matches in order of their first event. With a skip strategy a completed match waits while an
   * earlier-starting partial match is still running; each emitted match prunes partial and completed matches.
   */
  private processMatchesAccordingToSkipStrategy(
    accessor: SharedBufferAccessor<T>,
    nfaState: NFAState,
    skipStrategy: AfterMatchSkipStrategy,
    potentialMatches: JavaPriorityQueue<ComputationState>,
    partialMatches: JavaPriorityQueue<ComputationState>,
    result: Match<T>[],
  ): void {
    const completed = nfaState.completedMatches;
    offerAll(completed, potentialMatches.items, compareComputationStates);
    const isSkip = skipStrategy.isSkipStrategy();
    let earliestMatch: ComputationState | undefined;
    while ((earliestMatch = peek(completed)) !== undefined) {
      if (isSkip) {
        const earliestPartialMatch = peek(partialMatches);
        if (earliestPartialMatch !== undefined && compareComputationStates(earliestMatch, earliestPartialMatch) > 0) break;
      }
      nfaState.stateChanged = true;
      poll(completed, compareComputationStates);
      const matchedResult = accessor.extractPatterns(earliestMatch.previousBufferEntry!, earliestMatch.version);
      skipStrategy.prune(partialMatches, matchedResult, accessor as SharedBufferAccessor<unknown>);
      skipStrategy.prune(completed, matchedResult, accessor as SharedBufferAccessor<unknown>);
      result.push(accessor.materializeMatch(matchedResult[0]!));
      accessor.releaseNode(earliestMatch.previousBufferEntry!, earliestMatch.version);
    }
  }

  /** The partial matches one partial match turns into when it sees the current event (see the class comment). */
  private computeNextStates(
    accessor: SharedBufferAccessor<T>,
    cs: ComputationState,
    timerService: CepTimerService,
  ): ComputationState[] {
    const event = this.eventWrapper;
    const ctx = this.context;
    ctx.reset(accessor, cs, timerService, event.timestamp);
    const state = this.getState(cs);
    const edges = this.createDecisionGraph(ctx, state, event.event as T);
    const totalTake = this.decisionTakes;
    const totalIgnore = this.decisionIgnores;
    let takeBranchesToVisit = Math.max(0, totalTake - 1);
    let ignoreBranchesToVisit = totalIgnore;
    const totalTakeToSkip = Math.max(0, totalTake - 1);
    const isStart = state.isStart();

    const result: ComputationState[] = [];
    for (const edge of edges) {
      if (edge.action === 'IGNORE') {
        if (isStart) continue; // a start state never ignores: it stays anyway (below)
        let version: DeweyNumber;
        if (edge.targetState.name === state.name) {
          // stay in the same state (looping or singleton)
          version = increase(cs.version, calculateIncreasingSelfState(totalIgnore, totalTake));
        } else {
          // IGNORE after PROCEED
          version = addStage(increase(cs.version, totalTakeToSkip + ignoreBranchesToVisit));
          ignoreBranchesToVisit--;
        }
        this.addComputationState(accessor, result, edge.targetState, cs.previousBufferEntry, version, cs.startTimestamp, cs.previousTimestamp, cs.startEventId);
      } else {
        // TAKE
        const nextState = edge.targetState;
        const currentVersion = increase(cs.version, takeBranchesToVisit);
        const nextVersion = addStage(currentVersion);
        takeBranchesToVisit--;
        const eventId = this.currentEventId();
        const newEntry = accessor.put(
          NFAStateNameHandler.getOriginalNameFromInternal(edge.sourceState.name),
          eventId,
          cs.previousBufferEntry,
          currentVersion,
        );
        const startTimestamp = isStart ? event.timestamp : cs.startTimestamp;
        const startEventId = isStart ? eventId : cs.startEventId;
        this.addComputationState(accessor, result, nextState, newEntry, nextVersion, startTimestamp, event.timestamp, startEventId);
        // if the state after the take can proceed to the final state, the match is complete as well
        const finalState = this.findFinalStateAfterProceed(ctx, nextState, event.event as T);
        if (finalState !== undefined) {
          this.addComputationState(accessor, result, finalState, newEntry, nextVersion, startTimestamp, event.timestamp, startEventId);
        }
      }
    }
    if (isStart) {
      const startVersion = increase(cs.version, calculateIncreasingSelfState(totalIgnore, totalTake));
      result.push(createStartState(cs.currentStateName, startVersion));
    }
    // the partial match itself is replaced by the ones above
    if (cs.previousBufferEntry !== null) accessor.releaseNode(cs.previousBufferEntry, cs.version);
    return result;
  }

  private addComputationState(
    accessor: SharedBufferAccessor<T>,
    out: ComputationState[],
    state: State<T>,
    previousEntry: NodeId | null,
    version: DeweyNumber,
    startTimestamp: number,
    previousTimestamp: number,
    startEventId: EventId | null,
  ): void {
    out.push(createState(state.name, previousEntry, version, startTimestamp, previousTimestamp, startEventId));
    if (previousEntry !== null) accessor.lockNode(previousEntry, version);
  }

  private decisionTakes = 0;
  private decisionIgnores = 0;
  private readonly stateStack: State<T>[] = [];

  /**
   * The TAKE and IGNORE edges reachable from `state` through PROCEED edges whose conditions hold for `event`, in
   * Flink's order (depth first, last PROCEED target first). Counts the branching edges (self-ignores excluded),
   * which the Dewey versions depend on.
   */
  private createDecisionGraph(ctx: NFAConditionContext<T>, state: State<T>, event: T): StateTransition<T>[] {
    const edges: StateTransition<T>[] = [];
    let takes = 0;
    let ignores = 0;
    const stack = this.stateStack;
    stack.length = 0;
    stack.push(state);
    while (stack.length > 0) {
      const current = stack.pop()!;
      for (const t of current.transitions) {
        if (!checkFilterCondition(ctx, t.condition, event)) continue;
        if (t.action === 'PROCEED') {
          stack.push(t.targetState);
        } else {
          if (!(t.action === 'IGNORE' && t.targetState.name === state.name)) {
            if (t.action === 'IGNORE') ignores++;
            else takes++;
          }
          edges.push(t);
        }
      }
    }
    this.decisionTakes = takes;
    this.decisionIgnores = ignores;
    return edges;
  }

  private findFinalStateAfterProceed(ctx: NFAConditionContext<T>, state: State<T>, event: T): State<T> | undefined {
    const stack: State<T>[] = [state];
    while (stack.length > 0) {
      const current = stack.pop()!;
      for (const t of current.transitions) {
        if (t.action === 'PROCEED' && checkFilterCondition(ctx, t.condition, event)) {
          if (t.targetState.isFinal()) return t.targetState;
          stack.push(t.targetState);
        }
      }
    }
    return undefined;
  }

  /** The events of a partial match so far, as stage → event ids. */
  extractCurrentMatches(accessor: SharedBufferAccessor<T>, cs: ComputationState): EventIdMatch {
    if (cs.previousBufferEntry === null) return new Map();
    const paths = accessor.extractPatterns(cs.previousBufferEntry, cs.version);
    if (paths.length === 0) return new Map();
    // a computation state has exactly one path
    return paths[0]!;
  }

  private getState(cs: ComputationState): State<T> {
    const state = this.states.get(cs.currentStateName);
    if (state === undefined) {
      throw new Error(`State ${cs.currentStateName} does not exist in the NFA. NFA has states ${[...this.states.keys()].join(', ')}`);
    }
    return state;
  }

  private isStartState(cs: ComputationState): boolean {
    return this.getState(cs).isStart();
  }
}

interface EventWrapper<T> {
  event: T | undefined;
  timestamp: number;
  eventId: EventId | null;
  accessor: SharedBufferAccessor<T> | null;
}

function checkFilterCondition<T>(ctx: ConditionContext<T>, condition: Condition<T> | undefined, event: T): boolean {
  return condition === undefined || condition(event, ctx);
}

function calculateIncreasingSelfState(ignoreBranches: number, takeBranches: number): number {
  return takeBranches === 0 && ignoreBranches === 0 ? 0 : ignoreBranches + Math.max(1, takeBranches);
}

/**
 * The context conditions see (Flink's `NFA.ConditionContext`). One instance per NFA, reset for each partial match;
 * the partial match's events are materialized only when a condition asks for them, once per partial match.
 */
class NFAConditionContext<T> implements ConditionContext<T> {
  private accessor: SharedBufferAccessor<T> | null = null;
  private cs: ComputationState | null = null;
  private timerService: CepTimerService | null = null;
  private eventTimestamp = 0;
  private matchedEvents: Match<T> | null = null;

  constructor(private readonly nfa: NFA<T>) {}

  reset(accessor: SharedBufferAccessor<T>, cs: ComputationState, timerService: CepTimerService, timestamp: number): void {
    this.accessor = accessor;
    this.cs = cs;
    this.timerService = timerService;
    this.eventTimestamp = timestamp;
    this.matchedEvents = null;
  }

  getEventsForPattern(name: string): readonly T[] {
    if (this.matchedEvents === null) {
      const accessor = this.accessor!;
      this.matchedEvents = accessor.materializeMatch(this.nfa.extractCurrentMatches(accessor, this.cs!));
    }
    return this.matchedEvents[name] ?? EMPTY;
  }

  timestamp(): number {
    return this.eventTimestamp;
  }

  currentProcessingTime(): number {
    return this.timerService!.currentProcessingTime();
  }
}
