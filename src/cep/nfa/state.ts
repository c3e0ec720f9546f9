// State and StateTransition: the vertices and edges of the compiled NFA (Flink's nfa.State / StateTransition).
import type { Condition } from '../pattern/conditions.ts';
import { NFAStateNameHandler } from './compiler/nfa-state-name-handler.ts';

/** What following an edge does with the current event (Flink's `StateTransitionAction`). */
export type StateTransitionAction = 'TAKE' | 'IGNORE' | 'PROCEED';

/**
 * - `Start`: where every match begins; a start partial match always stays in the queue.
 * - `Final`: reaching it completes a match.
 * - `Stop`: reaching it kills the branch (a negative stage matched).
 * - `Pending`: a trailing `notFollowedBy` waiting for its window to pass.
 */
export type StateType = 'Start' | 'Final' | 'Normal' | 'Stop' | 'Pending';

/**
 * An edge: TAKE consumes the event into the source stage and moves to the target; IGNORE skips the event and moves
 * to the target (often the state itself); PROCEED moves to the target without consuming (an epsilon edge) and the
 * target's edges are evaluated for the same event. Conditions are mutable because compiling a greedy stage
 * strengthens the edges of the stage after it.
 */
export interface StateTransition<T> {
  readonly action: StateTransitionAction;
  readonly sourceState: State<T>;
  readonly targetState: State<T>;
  condition: Condition<T> | undefined;
}

/** An NFA state: a name (the stage name, with `:n` for copies) and its outgoing edges in insertion order. */
export class State<T> {
  readonly transitions: StateTransition<T>[] = [];
  /** The user's stage name (the name up to the first ':'), under which the shared buffer files taken events. */
  readonly stageName: string;

  constructor(
    readonly name: string,
    public stateType: StateType,
  ) {
    this.stageName = NFAStateNameHandler.getOriginalNameFromInternal(name);
  }

  isStart(): boolean {
    return this.stateType === 'Start';
  }

  isFinal(): boolean {
    return this.stateType === 'Final';
  }

  isStop(): boolean {
    return this.stateType === 'Stop';
  }

  isPending(): boolean {
    return this.stateType === 'Pending';
  }

  makeStart(): void {
    this.stateType = 'Start';
  }

  addStateTransition(
    action: StateTransitionAction,
    targetState: State<T>,
    condition: Condition<T> | undefined,
  ): void {
    this.transitions.push({ action, sourceState: this, targetState, condition });
  }

  /** An IGNORE edge back to this state. */
  addIgnoreSelf(condition: Condition<T> | undefined): void {
    this.addStateTransition('IGNORE', this, condition);
  }

  addIgnore(targetState: State<T>, condition: Condition<T> | undefined): void {
    this.addStateTransition('IGNORE', targetState, condition);
  }

  /** A TAKE edge back to this state (a loop). */
  addTakeSelf(condition: Condition<T> | undefined): void {
    this.addStateTransition('TAKE', this, condition);
  }

  addTake(targetState: State<T>, condition: Condition<T> | undefined): void {
    this.addStateTransition('TAKE', targetState, condition);
  }

  addProceed(targetState: State<T>, condition: Condition<T> | undefined): void {
    this.addStateTransition('PROCEED', targetState, condition);
  }

  toString(): string {
    const edges = this.transitions.map((t) => `${t.action} -> ${t.targetState.name}`).join(', ');
    return `${this.stateType} State ${this.name} [${edges}]`;
  }
}
