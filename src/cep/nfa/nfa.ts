// NFA: runs every partial match of a key over each event — take / ignore / proceed edges, shared buffer, timeouts.
import type { ConditionContext, Condition } from '../pattern/conditions.ts';
import type { AfterMatchSkipStrategy } from './after-match-skip-strategy.ts';
import type { CompiledPattern } from './compiler/nfa-compiler.ts';
import {
  compareComputationStates,
  createStartState,
  createState,
  type ComputationState,
} from './computation-state.ts';
import { addStage, deweyEquals, increase, type DeweyNumber } from './dewey-number.ts';
import { newQueue, offer, offerAll, peek, poll, type JavaPriorityQueue } from './java-priority-queue.ts';
import { initialNFAState, type NFAState } from './nfa-state.ts';
import type { EventIdMatch, SharedBufferAccessor } from './shared-buffer/shared-buffer-accessor.ts';
import type { SharedBufferEvent, SharedBufferNode } from './shared-buffer/shared-buffer.ts';
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

/** What {@link NFA.advanceTime} returns; the empty result is one shared frozen object. */
export interface AdvanceTimeResult<T> {
  readonly matches: Match<T>[];
  readonly timedOut: TimedOutMatch<T>[];
}

const EMPTY: any[] = Object.freeze([] as any[]) as any[];
const NOTHING_ADVANCED: AdvanceTimeResult<any> = Object.freeze({ matches: EMPTY, timedOut: EMPTY });
const EMPTY_QUEUE: JavaPriorityQueue<any> = Object.freeze({ items: EMPTY });

/** What an event can do to a key's partial matches, judged from its conditions alone (see {@link NFA.eventReach}). */
export type EventReach = typeof EVENT_INERT | typeof EVENT_STARTS_NOTHING | typeof EVENT_MAY_START;
/** The event changes no partial match, whatever the key holds ({@link NFA.isInert}). */
export const EVENT_INERT = 0;
/** The event starts nothing from a key with no partial match ({@link NFA.startsNothing}), but is not inert. */
export const EVENT_STARTS_NOTHING = 1;
/** The event may start a partial match. */
export const EVENT_MAY_START = 2;

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
 * Cost model: `process` is amortised O(P · C + E) for P live partial matches, C the conditions on their decision
 * graphs and E the shared-buffer edges touched (taken, locked or released) — never O(events seen). A partial match
 * that skips the event (the common case under relaxed contiguity) keeps its object: no allocation, no lock or
 * release (Flink locks the entry for the copy and releases it for the original, a net no-op). The queue of
 * partial matches is rebuilt into a reused array (re-offering a heap in its array order costs one comparison per
 * element), so an event that starts and completes nothing allocates nothing. `advanceTime` is O(P) and allocates
 * only when something times out. Conditions that read `getEventsForPattern` pay O(path length) per partial match.
 * The NFA keeps scratch buffers and is therefore not reentrant: one event at a time (conditions must not call it).
 */
export class NFA<T> {
  private readonly states = new Map<string, State<T>>();
  readonly windowTime: number;
  readonly windowTimes: ReadonlyMap<string, number>;
  private readonly hasWindows: boolean;
  private readonly startStateNames: string[] = [];
  private readonly context: NFAConditionContext<T>;
  /** The states a partial match can wait in (neither Final nor Stop), for {@link isInert}. */
  private readonly restingStates: State<T>[] = [];
  /** The start states, for {@link startsNothing}. */
  private readonly startStates: State<T>[] = [];
  /** The states a partial match can wait in past the start (the resting states that are no start state). */
  private readonly restingStatesPastStart: State<T>[] = [];
  /**
   * Whether an event that {@link isInert} calls inert may go unseen: true unless time passing can complete a match
   * (a trailing `notFollowedBy` waits in a Pending state, or a skip strategy holds completed matches back while a
   * window runs). Those matches are emitted at the time `advanceTime` is called with, so there the timestamps of
   * the events seen matter even when the events change nothing.
   */
  readonly mayDropInertEvents: boolean;
  private readonly probeContext = new ProbeConditionContext<T>();

  // Scratch, reused for every event. Arrays are used with explicit counts, never emptied with `length = 0`
  // (which makes V8 drop the backing store and allocate a new one on the next push).
  // Stryker disable next-line ArrayDeclaration: scratch, each slot written before it is read
  private readonly nextStates: ComputationState[] = [];
  // Stryker disable next-line ArrayDeclaration: scratch, each slot written before it is read
  private readonly nextStateTypes: State<T>[] = [];
  private nextCount = 0;
  // Stryker disable next-line ArrayDeclaration: scratch, each slot written before it is read
  private readonly decisionEdges: StateTransition<T>[] = [];
  private decisionCount = 0;
  // Stryker disable next-line ArrayDeclaration: scratch, each slot written before it is read
  private readonly stateStack: State<T>[] = [];
  private decisionTakes = 0;
  private decisionIgnores = 0;
  /** Set by addComputationState when the partial match being computed was kept as is. */
  // Stryker disable next-line BooleanLiteral: computeNextStates resets it before anything reads it
  private keptCurrent = false;
  // Stryker disable next-line ObjectLiteral: process() sets every field before anything reads them
  private readonly eventWrapper: EventWrapper<T> = {
    event: undefined,
    timestamp: 0,
    eventId: null,
    accessor: null,
  };

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
    this.hasWindows = this.windowTime > 0 || this.windowTimes.size > 0;
    this.context = new NFAConditionContext<T>();
    let pending = false;
    for (const s of compiled.states) {
      if (s.isPending()) pending = true;
      if (!s.isFinal() && !s.isStop()) this.restingStates.push(s);
      if (s.isStart()) this.startStates.push(s);
      else if (!s.isFinal() && !s.isStop()) this.restingStatesPastStart.push(s);
    }
    this.mayDropInertEvents =
      !pending && !(this.hasWindows && compiled.afterMatchSkipStrategy.isSkipStrategy());
  }

  /**
   * Whether `event` leaves every partial match as it is, whatever partial matches a key holds: in every state a
   * partial match can wait in, the only edge whose condition holds is the state's IGNORE into itself (see
   * {@link ignoresInPlace}; a state past the start needs it: with no IGNORE edge, as under strict contiguity, it would
   * drop its partial match), so the event's decision graph (see {@link createDecisionGraph}) is that one edge. {@link process} then keeps every partial match object
   * as it is (same version, entry and timestamps), starts nothing, completes nothing and changes nothing in the
   * shared buffer. With {@link mayDropInertEvents}, an inert event may therefore be left out without changing a
   * key's matches, timeouts or their timestamps: the `advanceTime` before it only prunes what the next one (at the
   * key's next event or the watermark, with no event between) prunes as well, emitting the same timed-out matches in
   * the same place.
   *
   * Conditions are tested on the event alone: one that asks for the partial match's events or the processing time
   * makes the answer false (the event is then matched as usual), as does one that throws. `timestamp` is what
   * `ctx.timestamp()` returns. O(states · edges).
   */
  isInert(event: T, timestamp: number): boolean {
    return this.allIgnoreInPlace(this.restingStates, event, timestamp);
  }

  /**
   * Whether `event` leaves a key that holds no partial match as it is (see {@link isIdle}): no edge of a start state
   * holds but an IGNORE into itself, so {@link process} keeps the initial partial matches and starts
   * nothing, and `advanceTime` has nothing to time out. Conditions are tested as in {@link isInert}.
   */
  startsNothing(event: T, timestamp: number): boolean {
    return this.allIgnoreInPlace(this.startStates, event, timestamp);
  }

  /**
   * {@link isInert} and {@link startsNothing} at once, each condition tested once: {@link EVENT_INERT} when the event
   * is inert, else {@link EVENT_STARTS_NOTHING} when it starts nothing, else {@link EVENT_MAY_START}. The start states
   * are asked first: an event that may start something needs no other answer (inert implies starting nothing).
   */
  eventReach(event: T, timestamp: number): EventReach {
    if (!this.allIgnoreInPlace(this.startStates, event, timestamp)) return EVENT_MAY_START;
    return this.allIgnoreInPlace(this.restingStatesPastStart, event, timestamp)
      ? EVENT_INERT
      : EVENT_STARTS_NOTHING;
  }

  /**
   * Whether every one of `states` leaves a partial match waiting in it as it is when it sees `event` (see
   * {@link ignoresInPlace}), with no condition reading the partial match and none throwing.
   */
  private allIgnoreInPlace(states: readonly State<T>[], event: T, timestamp: number): boolean {
    const ctx = this.probeContext;
    ctx.start(timestamp);
    try {
      for (let i = 0; i < states.length; i++) {
        if (!this.ignoresInPlace(ctx, states[i]!, event) || ctx.readMatch) return false;
      }
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Whether `state`'s edges leave a partial match waiting in `state` as it is when it sees `event`: the only edge
   * whose condition holds is its IGNORE into itself (none for a start state, which stays anyway). A TAKE or an IGNORE
   * into another state changes the partial match; a PROCEED that holds is taken as a change too (it leads on to the
   * next state's edges; in compiled patterns optional stages and loops ignore into states of their own, so such an
   * event is never inert there anyway). O(edges).
   */
  private ignoresInPlace(ctx: ProbeConditionContext<T>, state: State<T>, event: T): boolean {
    const transitions = state.transitions;
    let selfIgnores = 0;
    for (let i = 0; i < transitions.length; i++) {
      const t = transitions[i]!;
      if (!checkFilterCondition(ctx, t.condition, event)) continue;
      // A TAKE into the state itself (a loop) is never alone: the state entering the loop takes the same events. An
      // IGNORE into another state is neither: it comes with a PROCEED that holds (optional stages, loops).
      // Stryker disable next-line ConditionalExpression,LogicalOperator: see above
      if (t.action !== 'IGNORE' || t.targetState !== state) return false;
      selfIgnores++;
    }
    // a start state never ignores (it stays anyway); any other needs its one IGNORE into itself
    return state.isStart() || selfIgnores === 1;
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
   * timeouts. The returned array is fresh when non-empty (a shared frozen empty array otherwise).
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
    accessor.pin();
    try {
      return this.doProcess(accessor, nfaState, skipStrategy, timerService);
    } finally {
      // the event was locked once when registered; processing is over, drop that lock
      if (current.eventId !== null) accessor.releaseEvent(current.eventId);
      accessor.unpin();
      current.event = undefined;
      current.eventId = null;
      current.accessor = null;
      this.context.clear();
    }
  }

  /**
   * Tells the NFA no event earlier than `timestamp` will come: partial matches whose window has passed time out
   * (returned if the NFA handles timeouts) and trailing `notFollowedBy` matches whose window passed complete.
   * O(partial matches); allocates only when something times out or completes.
   */
  advanceTime(
    accessor: SharedBufferAccessor<T>,
    nfaState: NFAState,
    timestamp: number,
    skipStrategy: AfterMatchSkipStrategy,
  ): AdvanceTimeResult<T> {
    const partial = nfaState.partialMatches.items;
    // fast path: nothing can time out (no window, or only start states waiting)
    if (!this.anyTimedOut(partial, timestamp)) return NOTHING_ADVANCED;
    accessor.pin();
    try {
      return this.advanceTimeSlow(accessor, nfaState, timestamp, skipStrategy);
    } finally {
      accessor.unpin();
    }
  }

  /**
   * The earliest time at which a partial match of `nfaState` times out (first event + window, or previous event +
   * gap), Infinity when none can: the operator wakes the key up then without further input. O(1) for
   * first-to-last windows (the heap's root, as in {@link anyTimedOut}), else O(partial matches).
   */
  nextTimeout(nfaState: NFAState): number {
    const partial = nfaState.partialMatches.items;
    if (!this.hasWindows || partial.length === 0) return Number.POSITIVE_INFINITY;
    // The shortcut and the scan below find the same time: the heap's root has the earliest first event, and a
    // partial match with a first event is never in a start state (no edge leads into one).
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: a shortcut, see above
    if (this.windowTimes.size === 0) {
      const root = partial[0]!;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut, see above
      if (root.startEventId === null) return Number.POSITIVE_INFINITY; // only start states wait
      // Stryker disable next-line ConditionalExpression,BooleanLiteral: a shortcut, see above
      if (!this.isStartState(root)) return root.startTimestamp + this.windowTime;
    }
    let next = Number.POSITIVE_INFINITY;
    for (let i = 0; i < partial.length; i++) {
      const cs = partial[i]!;
      // start states never time out (as isStateTimedOut); they are the only ones without a first event
      if (cs.startEventId === null) continue;
      if (this.windowTime > 0) {
        const end = cs.startTimestamp + this.windowTime;
        // Stryker disable next-line EqualityOperator: an equal time leaves the minimum as it is
        if (end < next) next = end;
      }
      const gap = this.windowTimes.get(cs.currentStateName) ?? 0;
      if (gap > 0) {
        const end = cs.previousTimestamp + gap;
        // Stryker disable next-line EqualityOperator: an equal time leaves the minimum as it is
        if (end < next) next = end;
      }
    }
    return next;
  }

  /** True when `nfaState` holds no partial match (only start states wait) and no held-back completed match. */
  isIdle(nfaState: NFAState): boolean {
    if (nfaState.completedMatches.items.length > 0) return false;
    const partial = nfaState.partialMatches.items;
    for (let i = 0; i < partial.length; i++) if (partial[i]!.startEventId !== null) return false;
    return true;
  }

  private advanceTimeSlow(
    accessor: SharedBufferAccessor<T>,
    nfaState: NFAState,
    timestamp: number,
    skipStrategy: AfterMatchSkipStrategy,
  ): AdvanceTimeResult<T> {
    const partial = nfaState.partialMatches.items;
    let timedOut: TimedOutMatch<T>[] = EMPTY;
    const newPartialMatches = newQueue<ComputationState>();
    const potentialMatches = newQueue<ComputationState>();
    for (const cs of partial) {
      const gap = this.windowTimes.get(cs.currentStateName) ?? 0;
      const timeoutForPrevious = this.isStateTimedOut(cs, timestamp, cs.previousTimestamp, gap);
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
            timestamp: timeoutForPrevious ? cs.previousTimestamp + gap : cs.startTimestamp + this.windowTime,
          });
        }
        // Stryker disable next-line ConditionalExpression: a partial match that times out took its first event, so it has an entry
        if (cs.previousBufferEntry !== null) accessor.releaseNode(cs.previousBufferEntry, cs.version);
      } else {
        offer(newPartialMatches, cs, compareComputationStates);
      }
    }
    const matches = this.processMatchesAccordingToSkipStrategy(
      accessor,
      nfaState,
      skipStrategy,
      potentialMatches,
      newPartialMatches,
    );
    nfaState.partialMatches = newPartialMatches;
    return { matches, timedOut };
  }

  /**
   * Whether any partial match times out at `timestamp`. O(1) for first-to-last windows: the queue is a heap on the
   * first event (start states last), so its root has the earliest start timestamp. A full scan is needed only for
   * previous-to-current windows (`WithinType.PREVIOUS_AND_CURRENT`, per-stage windows), whose latest timestamps the
   * queue does not order, and in the corner case of a root waiting in a start state.
   */
  private anyTimedOut(partial: readonly ComputationState[], timestamp: number): boolean {
    // A true answer where nothing times out only sends advanceTime down its slow path, which then finds nothing:
    // the shortcuts below are equivalent to the scan at the end (see nextTimeout).
    // The queue always holds a start state, so the scan below answers false as well without windows.
    // Stryker disable next-line ConditionalExpression,LogicalOperator,BooleanLiteral: a shortcut, see above
    if (!this.hasWindows || partial.length === 0) return false;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: a shortcut, see above
    if (this.windowTimes.size === 0) {
      const root = partial[0]!;
      // Stryker disable next-line ConditionalExpression,EqualityOperator,BooleanLiteral: a shortcut, see above
      if (root.startEventId === null) return false; // only start states wait
      // Stryker disable next-line ConditionalExpression,BooleanLiteral: a shortcut, see above
      if (!this.isStartState(root))
        return this.isStateTimedOut(root, timestamp, root.startTimestamp, this.windowTime);
    }
    for (let i = 0; i < partial.length; i++) {
      const cs = partial[i]!;
      // Stryker disable next-line ConditionalExpression: a start state does not time out either way
      if (cs.startEventId === null) continue; // start states never time out
      // Stryker disable next-line ConditionalExpression: a shortcut, see above (forced false is caught, but shares the line)
      if (this.isStateTimedOut(cs, timestamp, cs.startTimestamp, this.windowTime)) return true;
      const gap = this.windowTimes.get(cs.currentStateName) ?? 0;
      // Stryker disable next-line ConditionalExpression: a shortcut, see above (forced false is caught, but shares the line)
      if (this.isStateTimedOut(cs, timestamp, cs.previousTimestamp, gap)) return true;
    }
    // Stryker disable next-line BooleanLiteral: a shortcut, see above
    return false;
  }

  private isStateTimedOut(
    cs: ComputationState,
    timestamp: number,
    since: number,
    windowTime: number,
  ): boolean {
    return windowTime > 0 && timestamp - since >= windowTime && !this.isStartState(cs);
  }

  /** Registers the current event in the shared buffer on its first TAKE (Flink's `EventWrapper`). */
  private currentEventId(): SharedBufferEvent<T> {
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
    const partial = nfaState.partialMatches.items;
    // The new queue, created at the first partial match that does not stay as it is. Until then it would equal the
    // old queue's prefix: re-offering a heap's elements in array order puts each at its old index.
    let newPartialMatches: JavaPriorityQueue<ComputationState> | null = null;
    let potentialMatches: JavaPriorityQueue<ComputationState> | null = null;
    const out = this.nextStates;
    const outTypes = this.nextStateTypes;
    for (let i = 0; i < partial.length; i++) {
      const cs = partial[i]!;
      const state = this.getState(cs);
      const csIsStart = state.isStart();
      this.nextCount = 0;
      this.computeNextStates(accessor, cs, state, timerService);
      const n = this.nextCount;
      // A partial match kept as is took no edge that changes its version, so nothing else came of it: n is 1.
      // Stryker disable next-line ConditionalExpression: see above (the other forced values are caught, but share the line)
      if (n === 1 && out[0] === cs) {
        // the common case: the partial match skipped the event (or the start state saw no start); a start state
        // kept as is started nothing (no edge leads into a start state, so it has no first event)
        out[0] = undefined!;
        if (newPartialMatches !== null) offer(newPartialMatches, cs, compareComputationStates);
        continue;
      }
      nfaState.stateChanged = true;
      newPartialMatches ??= { items: partial.slice(0, i) };
      // finals are offered and stop states (a negative stage matched) released in order, then the rest kept ...
      let shouldDiscardPath = false;
      for (let j = 0; j < n; j++) {
        const ns = out[j]!;
        if (csIsStart && ns.startEventId !== null) nfaState.newStartPartialMatch = true;
        const type = outTypes[j]!;
        if (type.isFinal()) {
          potentialMatches ??= newQueue();
          offer(potentialMatches, ns, compareComputationStates);
        } else if (type.isStop()) {
          shouldDiscardPath = true;
          // Stryker disable next-line ConditionalExpression: a Stop state is entered by a TAKE, so it has an entry
          if (ns.previousBufferEntry !== null) accessor.releaseNode(ns.previousBufferEntry, ns.version);
        }
      }
      // ... unless a stop state killed the branch
      for (let j = 0; j < n; j++) {
        const type = outTypes[j]!;
        const ns = out[j]!;
        out[j] = undefined!;
        if (type.isFinal() || type.isStop()) continue;
        if (shouldDiscardPath) {
          // A start state cannot reach a Stop state (the compiler rejects an optional path into a negative stage),
          // so what a Stop state discards is past its start and has an entry.
          // Stryker disable next-line ConditionalExpression: see above
          if (ns.previousBufferEntry !== null) accessor.releaseNode(ns.previousBufferEntry, ns.version);
        } else {
          offer(newPartialMatches, ns, compareComputationStates);
        }
      }
    }
    if (newPartialMatches !== null) nfaState.partialMatches = newPartialMatches;
    // A completed match came from a partial match that changed (the state is marked changed already). Nothing
    // completed and nothing held back leaves the skip strategy nothing to emit.
    // Stryker disable next-line ConditionalExpression: a shortcut, see above
    if (potentialMatches === null && nfaState.completedMatches.items.length === 0) return EMPTY;
    return this.processMatchesAccordingToSkipStrategy(
      accessor,
      nfaState,
      skipStrategy,
      potentialMatches ?? EMPTY_QUEUE,
      nfaState.partialMatches,
    );
  }

  /**
   * Emits completed matches in order of their first event. With a skip strategy a completed match waits while an
   * earlier-starting partial match is still running; each emitted match prunes partial and completed matches.
   * Returns the emitted matches (a fresh array, or the shared empty one).
   */
  private processMatchesAccordingToSkipStrategy(
    accessor: SharedBufferAccessor<T>,
    nfaState: NFAState,
    skipStrategy: AfterMatchSkipStrategy,
    potentialMatches: JavaPriorityQueue<ComputationState>,
    partialMatches: JavaPriorityQueue<ComputationState>,
  ): Match<T>[] {
    let result: Match<T>[] = EMPTY;
    const completed = nfaState.completedMatches;
    offerAll(completed, potentialMatches.items, compareComputationStates);
    const isSkip = skipStrategy.isSkipStrategy();
    let earliestMatch: ComputationState | undefined;
    while ((earliestMatch = peek(completed)) !== undefined) {
      if (isSkip) {
        const earliestPartialMatch = peek(partialMatches);
        if (
          // Stryker disable next-line ConditionalExpression: the queue always holds the start state
          earliestPartialMatch !== undefined &&
          compareComputationStates(earliestMatch, earliestPartialMatch) > 0
        )
          break;
      }
      // Stryker disable next-line BooleanLiteral: whatever released this match (a partial match that moved on, or timed out) marked the state changed already
      nfaState.stateChanged = true;
      poll(completed, compareComputationStates);
      const entry = earliestMatch.previousBufferEntry!;
      let match: Match<T>;
      // Stryker disable next-line ConditionalExpression: both ways read the same first path, and noSkip prunes nothing
      if (isSkip) {
        // pruning looks at every path of the match; the match emitted is the first
        const matchedResult = accessor.extractPatterns(entry, earliestMatch.version);
        skipStrategy.prune(partialMatches, matchedResult, accessor as SharedBufferAccessor<unknown>);
        skipStrategy.prune(completed, matchedResult, accessor as SharedBufferAccessor<unknown>);
        match = accessor.materializeMatch(matchedResult[0]!);
      } else {
        match = accessor.materializeFirstPath(entry, earliestMatch.version);
      }
      if (result === EMPTY) result = [];
      result.push(match);
      accessor.releaseNode(entry, earliestMatch.version);
    }
    return result;
  }

  /**
   * Appends to `nextStates` / `nextStateTypes` the partial matches `cs` turns into when it sees the current event
   * (see the class comment), and releases `cs`'s entry unless `cs` itself was kept.
   */
  private computeNextStates(
    accessor: SharedBufferAccessor<T>,
    cs: ComputationState,
    state: State<T>,
    timerService: CepTimerService,
  ): void {
    const event = this.eventWrapper;
    const ctx = this.context;
    ctx.reset(accessor, cs, timerService, event.timestamp);
    this.createDecisionGraph(ctx, state, event.event as T);
    const edges = this.decisionEdges;
    const edgeCount = this.decisionCount;
    const totalTake = this.decisionTakes;
    const totalIgnore = this.decisionIgnores;
    let takeBranchesToVisit = Math.max(0, totalTake - 1);
    let ignoreBranchesToVisit = totalIgnore;
    const totalTakeToSkip = Math.max(0, totalTake - 1);
    const isStart = state.isStart();
    this.keptCurrent = false;

    for (let e = 0; e < edgeCount; e++) {
      const edge = edges[e]!;
      edges[e] = undefined!;
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
        this.addComputationState(
          accessor,
          cs,
          edge.targetState,
          cs.previousBufferEntry,
          version,
          cs.startTimestamp,
          cs.previousTimestamp,
          cs.startEventId,
        );
      } else {
        // TAKE
        const nextState = edge.targetState;
        const currentVersion = increase(cs.version, takeBranchesToVisit);
        const nextVersion = addStage(currentVersion);
        takeBranchesToVisit--;
        const eventId = this.currentEventId();
        const newEntry = accessor.put(
          edge.sourceState.stageName,
          eventId,
          cs.previousBufferEntry,
          currentVersion,
        );
        const startTimestamp = isStart ? event.timestamp : cs.startTimestamp;
        const startEventId = isStart ? eventId : cs.startEventId;
        this.addComputationState(
          accessor,
          cs,
          nextState,
          newEntry,
          nextVersion,
          startTimestamp,
          event.timestamp,
          startEventId,
        );
        // if the state after the take can proceed to the final state, the match is complete as well
        const finalState = this.findFinalStateAfterProceed(ctx, nextState, event.event as T);
        if (finalState !== undefined) {
          this.addComputationState(
            accessor,
            cs,
            finalState,
            newEntry,
            nextVersion,
            startTimestamp,
            event.timestamp,
            startEventId,
          );
        }
      }
    }
    if (isStart) {
      const startVersion = increase(cs.version, calculateIncreasingSelfState(totalIgnore, totalTake));
      // A start state's partial match is always a fresh one (no edge leads into a start state, and a start state
      // ignores nothing), so it stays as it is exactly when its version does: when it took nothing.
      const keep = deweyEquals(startVersion, cs.version);
      this.pushNextState(keep ? cs : createStartState(cs.currentStateName, startVersion), state);
    }
    // The partial match itself is replaced by the ones above. Flink locks the entry for an identical copy and then
    // releases it for the original; when the original was kept, both are skipped (same counts, no walk). A start
    // state has no entry to release, kept or not.
    if (!this.keptCurrent && cs.previousBufferEntry !== null)
      accessor.releaseNode(cs.previousBufferEntry, cs.version);
  }

  private pushNextState(cs: ComputationState, state: State<T>): void {
    const n = this.nextCount++;
    this.nextStates[n] = cs;
    this.nextStateTypes[n] = state;
  }

  private addComputationState(
    accessor: SharedBufferAccessor<T>,
    cs: ComputationState,
    state: State<T>,
    previousEntry: SharedBufferNode<T> | null,
    version: DeweyNumber,
    startTimestamp: number,
    previousTimestamp: number,
    startEventId: SharedBufferEvent<T> | null,
  ): void {
    // The version alone tells a partial match that stays as it is: a TAKE and an IGNORE into another state add a
    // stage to it, and an IGNORE into the partial match's own state leaves it as it is only when no other branch
    // was counted. Such an IGNORE keeps the entry, the timestamps and the first event too, and there is at most one
    // per event: a state has one IGNORE into itself, and PROCEED edges (no cycles) never lead back to it.
    if (deweyEquals(version, cs.version)) {
      this.keptCurrent = true;
      this.pushNextState(cs, state);
      return;
    }
    this.pushNextState(
      createState(state.name, previousEntry, version, startTimestamp, previousTimestamp, startEventId),
      state,
    );
    // a TAKE gives an entry, and a partial match past its start state has one
    // Stryker disable next-line ConditionalExpression: see above
    if (previousEntry !== null) accessor.lockNode(previousEntry, version);
  }

  /**
   * Fills `decisionEdges` with the TAKE and IGNORE edges reachable from `state` through PROCEED edges whose
   * conditions hold for `event`, in Flink's order (depth first, last PROCEED target first). Counts the branching
   * edges (self-ignores excluded), which the Dewey versions depend on.
   */
  private createDecisionGraph(ctx: NFAConditionContext<T>, state: State<T>, event: T): void {
    const edges = this.decisionEdges;
    let count = 0;
    let takes = 0;
    let ignores = 0;
    const stack = this.stateStack;
    stack[0] = state;
    let sp = 1;
    while (sp > 0) {
      const current = stack[--sp]!;
      const transitions = current.transitions;
      for (let i = 0; i < transitions.length; i++) {
        const t = transitions[i]!;
        if (!checkFilterCondition(ctx, t.condition, event)) continue;
        if (t.action === 'PROCEED') {
          stack[sp++] = t.targetState;
        } else {
          if (!(t.action === 'IGNORE' && t.targetState.name === state.name)) {
            if (t.action === 'IGNORE') ignores++;
            else takes++;
          }
          edges[count++] = t;
        }
      }
    }
    this.decisionCount = count;
    this.decisionTakes = takes;
    this.decisionIgnores = ignores;
  }

  private findFinalStateAfterProceed(
    ctx: NFAConditionContext<T>,
    state: State<T>,
    event: T,
  ): State<T> | undefined {
    // the decision graph is built, so its stack is free
    const stack = this.stateStack;
    stack[0] = state;
    let sp = 1;
    while (sp > 0) {
      const current = stack[--sp]!;
      const transitions = current.transitions;
      for (let i = 0; i < transitions.length; i++) {
        const t = transitions[i]!;
        if (t.action === 'PROCEED' && checkFilterCondition(ctx, t.condition, event)) {
          if (t.targetState.isFinal()) return t.targetState;
          stack[sp++] = t.targetState;
        }
      }
    }
    return undefined;
  }

  /** The events of a partial match so far, as stage → events. */
  extractCurrentMatches(accessor: SharedBufferAccessor<T>, cs: ComputationState): EventIdMatch<T> {
    if (cs.previousBufferEntry === null) return new Map();
    const paths = accessor.extractPatterns(cs.previousBufferEntry, cs.version);
    if (paths.length === 0) return new Map();
    // a computation state has exactly one path
    return paths[0]!;
  }

  private getState(cs: ComputationState): State<T> {
    const state = this.states.get(cs.currentStateName);
    if (state === undefined) {
      throw new Error(
        `State ${cs.currentStateName} does not exist in the NFA. NFA has states ${[...this.states.keys()].join(', ')}`,
      );
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
  eventId: SharedBufferEvent<T> | null;
  accessor: SharedBufferAccessor<T> | null;
}

function checkFilterCondition<T>(
  ctx: ConditionContext<T>,
  condition: Condition<T> | undefined,
  event: T,
): boolean {
  return condition === undefined || condition(event, ctx);
}

function calculateIncreasingSelfState(ignoreBranches: number, takeBranches: number): number {
  return takeBranches === 0 && ignoreBranches === 0 ? 0 : ignoreBranches + Math.max(1, takeBranches);
}

/**
 * The context of {@link NFA.isInert}: no partial match, so asking for its events (or for the processing time, which
 * is that of the event's processing) marks the answer as unknown.
 */
class ProbeConditionContext<T> implements ConditionContext<T> {
  // Stryker disable next-line BooleanLiteral: start() sets it before anything reads it
  readMatch = false;
  private eventTimestamp = 0;

  start(timestamp: number): void {
    this.readMatch = false;
    this.eventTimestamp = timestamp;
  }

  // A condition given no list fails on undefined: the probe's catch answers false as well.
  // Stryker disable next-line BlockStatement: see above
  getEventsForPattern(_name: string): readonly T[] {
    this.readMatch = true;
    return EMPTY;
  }

  timestamp(): number {
    return this.eventTimestamp;
  }

  currentProcessingTime(): number {
    this.readMatch = true;
    return 0;
  }
}

/**
 * The context conditions see (Flink's `NFA.ConditionContext`). One instance per NFA, reset for each partial match;
 * the partial match's path is walked only when a condition asks for events, once per partial match and event, and
 * each `getEventsForPattern` call then costs O(path length).
 */
class NFAConditionContext<T> implements ConditionContext<T> {
  private accessor: SharedBufferAccessor<T> | null = null;
  private cs: ComputationState | null = null;
  private timerService: CepTimerService | null = null;
  private eventTimestamp = 0;
  /** Entries of the partial match's path, the latest first; valid when pathLength >= 0. */
  // Stryker disable next-line ArrayDeclaration: scratch, each slot written before it is read
  private readonly path: SharedBufferNode<T>[] = [];
  // Stryker disable next-line UnaryOperator: reset() sets it before anything reads it
  private pathLength = -1;
  private lastName: string | null = null;
  private lastEvents: readonly T[] = EMPTY;

  reset(
    accessor: SharedBufferAccessor<T>,
    cs: ComputationState,
    timerService: CepTimerService,
    timestamp: number,
  ): void {
    this.accessor = accessor;
    this.cs = cs;
    this.timerService = timerService;
    this.eventTimestamp = timestamp;
    this.pathLength = -1;
    this.lastName = null;
    this.lastEvents = EMPTY;
  }

  /** Drops references to the last partial match and its events (for the garbage collector only). */
  // Stryker disable next-line BlockStatement: reset() sets every field before anything reads it
  clear(): void {
    this.accessor = null;
    this.cs = null;
    this.timerService = null;
    // Stryker disable next-line UnaryOperator: as above
    this.pathLength = -1;
    this.lastName = null;
    this.lastEvents = EMPTY;
  }

  getEventsForPattern(name: string): readonly T[] {
    if (name === this.lastName) return this.lastEvents;
    // Stryker disable next-line EqualityOperator: an empty path is that of a start state, read again without a walk
    if (this.pathLength < 0) {
      const cs = this.cs!;
      this.pathLength =
        cs.previousBufferEntry === null
          ? 0
          : this.accessor!.extractFirstPath(cs.previousBufferEntry, cs.version, this.path);
    }
    let events: T[] | null = null;
    const path = this.path;
    for (let i = this.pathLength - 1; i >= 0; i--) {
      const node = path[i]!;
      if (node.pageName === name) (events ??= []).push(node.event.element);
    }
    this.lastName = name;
    this.lastEvents = events ?? EMPTY;
    return this.lastEvents;
  }

  timestamp(): number {
    return this.eventTimestamp;
  }

  currentProcessingTime(): number {
    return this.timerService!.currentProcessingTime();
  }
}
