// NFACompiler: translates a Pattern into the states and edges of an NFA, exactly as FlinkCEP's NFACompiler does.
import { andCondition, notCondition, trueCondition, type Condition } from '../../pattern/conditions.ts';
import { MalformedPatternError } from '../../pattern/malformed-pattern-error.ts';
import { GroupPattern, Pattern } from '../../pattern/pattern.ts';
import type { Times } from '../../pattern/quantifier.ts';
import type { AfterMatchSkipStrategy } from '../after-match-skip-strategy.ts';
import { State, type StateType } from '../state.ts';
import { NFAStateNameHandler } from './nfa-state-name-handler.ts';

/** The name of the final state every match ends in. */
export const ENDING_STATE_NAME = '$endState$';

/** The compiled automaton: its states, the pattern's window and the per-state previous-to-current windows. */
export interface CompiledPattern<T> {
  readonly states: readonly State<T>[];
  /** Milliseconds a match may span from its first event (`within`, FIRST_AND_LAST), 0 for none. */
  readonly windowTime: number;
  /** Per NFA state: the largest gap from the previous event (`within(..., PREVIOUS_AND_CURRENT)`, times windows). */
  readonly windowTimes: ReadonlyMap<string, number>;
  readonly afterMatchSkipStrategy: AfterMatchSkipStrategy;
}

/**
 * Compiles a pattern (Flink's `NFACompiler.compileFactory`). The pattern is walked from its last stage to its
 * first; each stage becomes one or more states whose edges lead to the states of the stage after it:
 *
 * - a single stage: a state with TAKE to the next stage, IGNORE to itself for relaxed contiguity
 *   (`followedBy` ignores non-matching events, `followedByAny` every event) and, if optional, PROCEED past it;
 * - `times(n, m)`: n mandatory states then m - n optional ones; looping stages end in a state that TAKEs into
 *   itself; `greedy` strengthens the next stage's edges so the loop wins; `until` cuts the loop;
 * - negative stages become conditions: `notNext` a state that PROCEEDs only if the event does not match,
 *   `notFollowedBy` PROCEED edges into a Stop state from the states before it (or a Pending state at the end);
 * - group patterns compile their inner pattern in place, looping groups with an extra entry state.
 *
 * Malformed patterns are rejected with Flink's messages.
 *
 * @example
 * const compiled = compilePattern(Pattern.begin<Ev>('a').where(isA).followedBy('b').where(isB));
 */
export function compilePattern<T>(pattern: Pattern<T, any, any, any>): CompiledPattern<T> {
  if (!(pattern instanceof Pattern)) throw new MalformedPatternError('CEP needs a Pattern');
  const compiler = new NFAFactoryCompiler<T>(pattern);
  compiler.compileFactory();
  return {
    states: compiler.states,
    windowTime: compiler.getWindowTime(),
    windowTimes: compiler.windowTimes,
    afterMatchSkipStrategy: pattern.afterMatchSkipStrategy,
  };
}

/** Whether a pattern can match no event at all (e.g. `a?`, `a*`), as Flink's `canProduceEmptyMatches`. */
export function canProduceEmptyMatches(pattern: Pattern<any, any, any, any>): boolean {
  const compiled = compilePattern(pattern);
  const start = compiled.states.find((s) => s.isStart());
  // Stryker disable next-line ConditionalExpression,StringLiteral: every compiled pattern has a start state
  if (start === undefined) throw new Error('Compiler did not produce a start state');
  const visited = new Set<State<unknown>>();
  const stack: State<unknown>[] = [start as State<unknown>];
  while (stack.length > 0) {
    const current = stack.pop()!;
    // Stryker disable next-line ConditionalExpression: PROCEED edges form no cycle (the NFA itself would loop on one), so a state seen twice only repeats the search
    if (visited.has(current)) continue;
    visited.add(current);
    for (const t of current.transitions) {
      if (t.action !== 'PROCEED') continue;
      if (t.targetState.isFinal()) return true;
      stack.push(t.targetState);
    }
  }
  return false;
}

type NotCondition<T> = { condition: Condition<T>; name: string };
type AnyPattern<T> = Pattern<T, any, any, any>;

class NFAFactoryCompiler<T> {
  private readonly nameHandler = new NFAStateNameHandler();
  private readonly stopStates = new Map<string, State<T>>();
  readonly states: State<T>[] = [];
  readonly windowTimes = new Map<string, number>();
  private windowTime: number | undefined = undefined;
  private currentGroupPattern: GroupPattern<T, any, any> | undefined = undefined;
  private readonly firstOfLoopMap = new Map<GroupPattern<T, any, any>, boolean>();
  private currentPattern: AnyPattern<T>;
  private followingPattern: AnyPattern<T> | undefined = undefined;
  private readonly afterMatchSkipStrategy: AfterMatchSkipStrategy;
  private readonly originalStateMap = new Map<string, State<T>>();

  constructor(pattern: AnyPattern<T>) {
    this.currentPattern = pattern;
    this.afterMatchSkipStrategy = pattern.afterMatchSkipStrategy;
  }

  getWindowTime(): number {
    return this.windowTime ?? 0;
  }

  compileFactory(): void {
    const lastPattern = this.currentPattern;
    this.checkPatternNameUniqueness();
    this.checkPatternSkipStrategy();
    // traversing the pattern from the end to the beginning: the first state made is the final state
    let sinkState = this.createEndingState();
    sinkState = this.createMiddleStates(sinkState);
    this.createStartState(sinkState);
    this.checkPatternWindowTimes();
    if (
      lastPattern.getQuantifier().consumingStrategy === 'NOT_FOLLOW' &&
      !((this.windowTimes.get(lastPattern.name) ?? 0) > 0) &&
      this.getWindowTime() === 0
    ) {
      throw new MalformedPatternError(
        'NotFollowedBy is not supported without windowTime as a last part of a Pattern!',
      );
    }
  }

  private checkPatternWindowTimes(): void {
    const windowTime = this.windowTime;
    if (windowTime === undefined) return;
    for (const t of this.windowTimes.values()) {
      if (t > windowTime) {
        throw new MalformedPatternError(
          'The window length between the previous and current event cannot be larger than the window length between the first and last event for a Pattern.',
        );
      }
    }
  }

  private checkPatternSkipStrategy(): void {
    const patternName = this.afterMatchSkipStrategy.getPatternName();
    if (patternName === undefined) return;
    let pattern = this.currentPattern;
    while (pattern.previous !== undefined && pattern.name !== patternName) pattern = pattern.previous;
    if (pattern.name !== patternName) {
      throw new MalformedPatternError(
        `The pattern name specified in AfterMatchSkipStrategy can not be found in the given Pattern: '${patternName}'`,
      );
    }
  }

  private checkPatternNameUniqueness(): void {
    this.nameHandler.checkNameUniqueness(ENDING_STATE_NAME);
    for (let p: AnyPattern<T> | undefined = this.currentPattern; p !== undefined; p = p.previous)
      this.checkNameOf(p);
    this.nameHandler.clear();
  }

  private checkNameOf(pattern: AnyPattern<T>): void {
    if (pattern instanceof GroupPattern) {
      for (let p: AnyPattern<T> | undefined = pattern.rawPattern; p !== undefined; p = p.previous)
        this.checkNameOf(p);
    } else {
      this.nameHandler.checkNameUniqueness(pattern.name);
    }
  }

  /**
   * The negative conditions that apply to the current stage: those of `notFollowedBy` stages reachable backwards
   * through optional stages.
   */
  private getCurrentNotCondition(): NotCondition<T>[] {
    const notConditions: NotCondition<T>[] = [];
    let previousPattern = this.currentPattern;
    while (
      previousPattern.previous !== undefined &&
      (previousPattern.previous.getQuantifier().hasProperty('OPTIONAL') ||
        previousPattern.previous.getQuantifier().consumingStrategy === 'NOT_FOLLOW')
    ) {
      previousPattern = previousPattern.previous;
      if (previousPattern.getQuantifier().consumingStrategy === 'NOT_FOLLOW') {
        notConditions.push({ condition: this.getTakeCondition(previousPattern), name: previousPattern.name });
      }
    }
    return notConditions;
  }

  private createEndingState(): State<T> {
    const endState = this.createNamedState(ENDING_STATE_NAME, 'Final');
    this.windowTime = this.currentPattern.getWindowSize('FIRST_AND_LAST');
    return endState;
  }

  private createMiddleStates(sinkState: State<T>): State<T> {
    let lastSink = sinkState;
    while (this.currentPattern.previous !== undefined) {
      const strategy = this.currentPattern.getQuantifier().consumingStrategy;
      if (strategy === 'NOT_FOLLOW') {
        // notFollowedBy stages become edge conditions; only a trailing one with a window gets a (Pending) state
        if (
          (this.currentPattern.getWindowSize('PREVIOUS_AND_CURRENT') !== undefined ||
            this.getWindowTime() > 0) &&
          lastSink.isFinal()
        ) {
          const notFollow = this.createState('Pending', true);
          const notCond = this.getTakeCondition(this.currentPattern);
          const stopState = this.createStopState(notCond, this.currentPattern.name);
          notFollow.addProceed(stopState, notCond);
          notFollow.addIgnoreSelf(notCondition(notCond));
          lastSink = notFollow;
        }
      } else if (strategy === 'NOT_NEXT') {
        const notNext = this.createState('Normal', true);
        const notCond = this.getTakeCondition(this.currentPattern);
        const stopState = this.createStopState(notCond, this.currentPattern.name);
        if (lastSink.isFinal()) {
          // so that the proceed to final is not fired
          notNext.addIgnore(lastSink, notCondition(notCond));
        } else {
          notNext.addProceed(lastSink, notCondition(notCond));
        }
        notNext.addProceed(stopState, notCond);
        lastSink = notNext;
      } else {
        lastSink = this.convertPattern(lastSink);
      }

      // we traverse the pattern graph backwards
      this.followingPattern = this.currentPattern;
      this.currentPattern = this.currentPattern.previous;
      const w = this.currentPattern.getWindowSize('FIRST_AND_LAST');
      // Stryker disable next-line EqualityOperator: an equal window assigns the value it already has
      if (w !== undefined && w < (this.windowTime ?? Number.POSITIVE_INFINITY)) this.windowTime = w;
    }
    return lastSink;
  }

  private createStartState(sinkState: State<T>): State<T> {
    const beginningState = this.convertPattern(sinkState);
    beginningState.makeStart();
    return beginningState;
  }

  private convertPattern(sinkState: State<T>): State<T> {
    let lastSink: State<T>;
    const quantifier = this.currentPattern.getQuantifier();
    if (quantifier.hasProperty('LOOPING')) {
      // if loop has started then all notPatterns previous to the optional states are no longer valid
      this.setCurrentGroupPatternFirstOfLoop(false);
      const sink = this.copyWithoutTransitiveNots(sinkState);
      const looping = this.createLooping(sink);
      // Stryker disable next-line BooleanLiteral: createTimesState sets the flag again before anything reads it
      this.setCurrentGroupPatternFirstOfLoop(true);
      lastSink = this.createTimesState(looping, sinkState, this.currentPattern.getTimes()!);
    } else if (quantifier.hasProperty('TIMES')) {
      lastSink = this.createTimesState(sinkState, sinkState, this.currentPattern.getTimes()!);
    } else {
      lastSink = this.createSingletonStateOf(sinkState);
    }
    this.addStopStates(lastSink);
    return lastSink;
  }

  /** A state of the current stage; a consuming state records the stage's previous-to-current window. */
  private createState(stateType: StateType, isTake: boolean): State<T> {
    const state = this.createNamedState(this.currentPattern.name, stateType);
    if (isTake) {
      const times = this.currentPattern.getTimes();
      if (times === undefined) {
        const w = this.currentPattern.getWindowSize('PREVIOUS_AND_CURRENT');
        if (w !== undefined) this.windowTimes.set(state.name, w);
      } else if (NFAStateNameHandler.isCopyName(state.name)) {
        // Flink records a times/looping stage's windowTime only on its copies (names with ':'), not on the
        // state that carries the plain stage name.
        if (times.windowTime !== undefined) this.windowTimes.set(state.name, times.windowTime);
      }
    }
    return state;
  }

  private createNamedState(name: string, stateType: StateType): State<T> {
    const state = new State<T>(this.nameHandler.getUniqueInternalName(name), stateType);
    this.states.push(state);
    return state;
  }

  private createStopState(notCond: Condition<T>, name: string): State<T> {
    let stopState = this.stopStates.get(name);
    if (stopState === undefined) {
      stopState = this.createNamedState(name, 'Stop');
      stopState.addTakeSelf(notCond);
      this.stopStates.set(name, stopState);
    }
    return stopState;
  }

  /**
   * Copies a state without the PROCEED edges into the Stop states of the negative stages before the current one:
   * once an optional stage took an event, an earlier `notFollowedBy` no longer applies
   * (`a notFollowedBy(b) c? d` matches `a c b d` but not `a b d`).
   */
  private copyWithoutTransitiveNots(sinkState: State<T>): State<T> {
    const currentNotCondition = this.getCurrentNotCondition();
    if (currentNotCondition.length === 0 || !this.currentPattern.getQuantifier().hasProperty('OPTIONAL'))
      return sinkState;
    const copyOfSink = this.createNamedState(sinkState.name, sinkState.stateType);
    for (const t of sinkState.transitions) {
      if (t.action === 'PROCEED') {
        let targetState = t.targetState;
        let remove = false;
        if (targetState.isStop()) {
          for (const nc of currentNotCondition) if (targetState.name === nc.name) remove = true;
        } else {
          targetState = this.copyWithoutTransitiveNots(t.targetState);
        }
        if (!remove) copyOfSink.addStateTransition(t.action, targetState, t.condition);
      } else {
        copyOfSink.addStateTransition(
          t.action,
          t.targetState === t.sourceState ? copyOfSink : t.targetState,
          t.condition,
        );
      }
    }
    return copyOfSink;
  }

  private copy(state: State<T>): State<T> {
    const copyOfState = this.createNamedState(
      NFAStateNameHandler.getOriginalNameFromInternal(state.name),
      state.stateType,
    );
    for (const t of state.transitions) {
      copyOfState.addStateTransition(
        t.action,
        t.targetState === t.sourceState ? copyOfState : t.targetState,
        t.condition,
      );
    }
    return copyOfState;
  }

  private addStopStates(state: State<T>): void {
    for (const nc of this.getCurrentNotCondition()) {
      state.addProceed(this.createStopState(nc.condition, nc.name), nc.condition);
    }
  }

  private addStopStateToLooping(loopingState: State<T>): void {
    const following = this.followingPattern;
    if (following !== undefined && following.getQuantifier().consumingStrategy === 'NOT_FOLLOW') {
      const notCond = this.getTakeCondition(following);
      loopingState.addProceed(this.createStopState(notCond, following.name), notCond);
    }
  }

  /** The states of a `times(from, to)` stage (also the mandatory prefix of `timesOrMore`). */
  private createTimesState(sinkState: State<T>, proceedState: State<T>, times: Times): State<T> {
    let lastSink = sinkState;
    this.setCurrentGroupPatternFirstOfLoop(false);
    const untilCondition = this.currentPattern.getUntilCondition();
    const innerIgnoreCondition = extendWithUntilCondition(
      this.getInnerIgnoreCondition(this.currentPattern),
      untilCondition,
      false,
    );
    const takeCondition = extendWithUntilCondition(
      this.getTakeCondition(this.currentPattern),
      untilCondition,
      // Stryker disable next-line BooleanLiteral: a take condition is never undefined, and the flag only decides that case
      true,
    )!;
    if (this.currentPattern.getQuantifier().hasProperty('GREEDY') && times.from !== times.to) {
      // Stryker disable next-line ConditionalExpression,EqualityOperator: until is accepted on looping stages only, whose times (timesOrMore) have from === to, so a greedy range never has one
      if (untilCondition !== undefined) this.originalStateMap.set(sinkState.name, this.copy(sinkState));
      updateWithGreedyCondition(sinkState, takeCondition);
    }
    for (let i = times.from; i < times.to; i++) {
      lastSink = this.createSingletonState(lastSink, proceedState, takeCondition, innerIgnoreCondition, true);
      this.addStopStateToLooping(lastSink);
    }
    for (let i = 0; i < times.from - 1; i++) {
      lastSink = this.createSingletonState(lastSink, undefined, takeCondition, innerIgnoreCondition, false);
      this.addStopStateToLooping(lastSink);
    }
    // the first state of the times stage
    this.setCurrentGroupPatternFirstOfLoop(true);
    return this.createSingletonState(
      lastSink,
      proceedState,
      takeCondition,
      this.getIgnoreCondition(this.currentPattern),
      this.currentPattern.getQuantifier().hasProperty('OPTIONAL'),
    );
  }

  private setCurrentGroupPatternFirstOfLoop(isFirstOfLoop: boolean): void {
    // Stryker disable next-line ConditionalExpression: the flag is only ever read for a group pattern
    if (this.currentPattern instanceof GroupPattern)
      this.firstOfLoopMap.set(this.currentPattern, isFirstOfLoop);
  }

  private isCurrentGroupPatternFirstOfLoop(): boolean {
    const g = this.currentGroupPattern;
    // Stryker disable next-line ConditionalExpression: the map has no entry for undefined, so its fallback gives the same true
    return g === undefined ? true : (this.firstOfLoopMap.get(g) ?? true);
  }

  private headOfGroup(pattern: AnyPattern<T>): boolean {
    return this.currentGroupPattern !== undefined && pattern.previous === undefined;
  }

  private isHeadOfOptionalGroupPattern(pattern: AnyPattern<T>): boolean {
    if (!this.headOfGroup(pattern)) return false;
    return (
      this.isCurrentGroupPatternFirstOfLoop() &&
      this.currentGroupPattern!.getQuantifier().hasProperty('OPTIONAL')
    );
  }

  private createSingletonStateOf(sinkState: State<T>): State<T> {
    return this.createSingletonState(
      sinkState,
      sinkState,
      this.getTakeCondition(this.currentPattern),
      this.getIgnoreCondition(this.currentPattern),
      this.currentPattern.getQuantifier().hasProperty('OPTIONAL'),
    );
  }

  /**
   * A single state; for an optional one (or the head of an optional group) a separate ignore state is created, so
   * that every PROCEED branch is created only once.
   */
  private createSingletonState(
    sinkState: State<T>,
    proceedState: State<T> | undefined,
    takeCondition: Condition<T>,
    ignoreCondition: Condition<T> | undefined,
    isOptional: boolean,
  ): State<T> {
    if (this.currentPattern instanceof GroupPattern) {
      return this.createGroupPatternState(this.currentPattern, sinkState, proceedState, isOptional);
    }
    const singletonState = this.createState('Normal', true);
    // if event is accepted then all notPatterns previous to the optional states are no longer valid
    const sink = this.copyWithoutTransitiveNots(sinkState);
    singletonState.addTake(sink, takeCondition);
    // if no element accepted the previous nots are still valid
    const proceedCondition = this.getTrueFunction();
    if (isOptional) {
      if (this.currentPattern.getQuantifier().hasProperty('GREEDY')) {
        const untilCondition = this.currentPattern.getUntilCondition();
        if (untilCondition !== undefined) {
          singletonState.addProceed(
            this.originalStateMap.get(proceedState!.name)!,
            andCondition(proceedCondition, untilCondition),
          );
        }
        singletonState.addProceed(
          proceedState!,
          untilCondition !== undefined
            ? andCondition(proceedCondition, notCondition(untilCondition))
            : proceedCondition,
        );
      } else {
        singletonState.addProceed(proceedState!, proceedCondition);
      }
    }
    if (ignoreCondition !== undefined) {
      let ignoreState: State<T>;
      if (isOptional || this.isHeadOfOptionalGroupPattern(this.currentPattern)) {
        ignoreState = this.createState('Normal', false);
        ignoreState.addTake(sink, takeCondition);
        ignoreState.addIgnoreSelf(ignoreCondition);
        this.addStopStates(ignoreState);
      } else {
        ignoreState = singletonState;
      }
      singletonState.addIgnore(ignoreState, ignoreCondition);
    }
    return singletonState;
  }

  private createGroupPatternState(
    groupPattern: GroupPattern<T, any, any>,
    sinkState: State<T>,
    proceedState: State<T> | undefined,
    isOptional: boolean,
  ): State<T> {
    const proceedCondition = this.getTrueFunction();
    const oldCurrentPattern = this.currentPattern;
    const oldFollowingPattern = this.followingPattern;
    const oldGroupPattern = this.currentGroupPattern;
    this.currentGroupPattern = groupPattern;
    this.currentPattern = groupPattern.rawPattern;
    let lastSink = this.createMiddleStates(sinkState);
    lastSink = this.convertPattern(lastSink);
    if (isOptional) lastSink.addProceed(proceedState!, proceedCondition);
    this.currentPattern = oldCurrentPattern;
    this.followingPattern = oldFollowingPattern;
    this.currentGroupPattern = oldGroupPattern;
    return lastSink;
  }

  private createLoopingGroupPatternState(
    groupPattern: GroupPattern<T, any, any>,
    sinkState: State<T>,
  ): State<T> {
    const proceedCondition = this.getTrueFunction();
    const oldCurrentPattern = this.currentPattern;
    const oldFollowingPattern = this.followingPattern;
    const oldGroupPattern = this.currentGroupPattern;
    const dummyState = this.createState('Normal', true);
    this.currentGroupPattern = groupPattern;
    this.currentPattern = groupPattern.rawPattern;
    let lastSink = this.createMiddleStates(dummyState);
    lastSink = this.convertPattern(lastSink);
    lastSink.addProceed(sinkState, proceedCondition);
    dummyState.addProceed(lastSink, proceedCondition);
    this.currentPattern = oldCurrentPattern;
    this.followingPattern = oldFollowingPattern;
    this.currentGroupPattern = oldGroupPattern;
    return lastSink;
  }

  /** A looping state: TAKE into itself, PROCEED to the next stage, and an ignore state for relaxed inner contiguity. */
  private createLooping(sinkState: State<T>): State<T> {
    if (this.currentPattern instanceof GroupPattern)
      return this.createLoopingGroupPatternState(this.currentPattern, sinkState);
    const untilCondition = this.currentPattern.getUntilCondition();
    const ignoreCondition = extendWithUntilCondition(
      this.getInnerIgnoreCondition(this.currentPattern),
      untilCondition,
      false,
    );
    const takeCondition = extendWithUntilCondition(
      this.getTakeCondition(this.currentPattern),
      untilCondition,
      // Stryker disable next-line BooleanLiteral: a take condition is never undefined, and the flag only decides that case
      true,
    )!;
    const proceedCondition = this.getTrueFunction();
    const loopingState = this.createState('Normal', true);
    if (this.currentPattern.getQuantifier().hasProperty('GREEDY')) {
      if (untilCondition !== undefined) {
        const sinkStateCopy = this.copy(sinkState);
        loopingState.addProceed(sinkStateCopy, andCondition(proceedCondition, untilCondition));
        this.originalStateMap.set(sinkState.name, sinkStateCopy);
      }
      loopingState.addProceed(
        sinkState,
        untilCondition !== undefined
          ? andCondition(proceedCondition, notCondition(untilCondition))
          : proceedCondition,
      );
      updateWithGreedyCondition(sinkState, this.getTakeCondition(this.currentPattern));
    } else {
      loopingState.addProceed(sinkState, proceedCondition);
    }
    loopingState.addTakeSelf(takeCondition);
    this.addStopStateToLooping(loopingState);
    if (ignoreCondition !== undefined) {
      const ignoreState = this.createState('Normal', false);
      ignoreState.addTake(loopingState, takeCondition);
      ignoreState.addIgnoreSelf(ignoreCondition);
      loopingState.addIgnore(ignoreState, ignoreCondition);
      this.addStopStateToLooping(ignoreState);
    }
    return loopingState;
  }

  /** The IGNORE condition between a looping / times stage's own events (its inner contiguity). */
  private getInnerIgnoreCondition(pattern: AnyPattern<T>): Condition<T> | undefined {
    let strategy = pattern.getQuantifier().innerConsumingStrategy;
    if (this.headOfGroup(pattern))
      strategy = this.currentGroupPattern!.getQuantifier().innerConsumingStrategy;
    let condition = ignoreConditionFor(strategy, pattern);
    const groupUntil = this.currentGroupPattern?.getUntilCondition();
    if (groupUntil !== undefined) condition = extendWithUntilCondition(condition, groupUntil, false);
    return condition;
  }

  /** The IGNORE condition towards the previous stage (the stage's contiguity). */
  private getIgnoreCondition(pattern: AnyPattern<T>): Condition<T> | undefined {
    let strategy = pattern.getQuantifier().consumingStrategy;
    if (this.headOfGroup(pattern)) {
      const q = this.currentGroupPattern!.getQuantifier();
      strategy = this.isCurrentGroupPatternFirstOfLoop() ? q.consumingStrategy : q.innerConsumingStrategy;
    }
    let condition = ignoreConditionFor(strategy, pattern);
    const groupUntil = this.currentGroupPattern?.getUntilCondition();
    if (groupUntil !== undefined) condition = extendWithUntilCondition(condition, groupUntil, false);
    return condition;
  }

  private getTakeCondition(pattern: AnyPattern<T>): Condition<T> {
    const take = pattern.getCondition();
    const groupUntil = this.currentGroupPattern?.getUntilCondition();
    // Stryker disable next-line BooleanLiteral: the take condition is never undefined, and the flag only decides that case
    return groupUntil !== undefined ? extendWithUntilCondition(take, groupUntil, true)! : take;
  }

  private getTrueFunction(): Condition<T> {
    const groupUntil = this.currentGroupPattern?.getUntilCondition();
    return groupUntil !== undefined
      ? // Stryker disable next-line BooleanLiteral: the condition is never undefined, and the flag only decides that case
        extendWithUntilCondition(trueCondition, groupUntil, true)!
      : trueCondition;
  }
}

function ignoreConditionFor<T>(strategy: string, pattern: AnyPattern<T>): Condition<T> | undefined {
  switch (strategy) {
    case 'SKIP_TILL_NEXT':
      return notCondition(pattern.getCondition());
    case 'SKIP_TILL_ANY':
      return trueCondition;
    default:
      return undefined; // STRICT (and negative stages): nothing may be skipped
  }
}

function extendWithUntilCondition<T>(
  condition: Condition<T> | undefined,
  untilCondition: Condition<T> | undefined,
  isTakeCondition: boolean,
): Condition<T> | undefined {
  if (untilCondition !== undefined && condition !== undefined)
    return andCondition(notCondition(untilCondition), condition);
  // Stryker disable next-line ConditionalExpression: take conditions are never undefined (a stage without where takes every event), so the line above already answered
  if (untilCondition !== undefined && isTakeCondition) return notCondition(untilCondition);
  return condition;
}

/** Greedy: the stage after a loop may not take an event the loop could take. */
function updateWithGreedyCondition<T>(state: State<T>, takeCondition: Condition<T>): void {
  for (const t of state.transitions) {
    t.condition = andCondition(t.condition ?? trueCondition, notCondition(takeCondition));
  }
}
