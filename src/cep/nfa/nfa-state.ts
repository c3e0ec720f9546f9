// NFAState: the per-key matching state — partial matches in progress and completed matches held back by a skip strategy.
import { compareComputationStates, createStartState, type ComputationState } from './computation-state.ts';
import { newQueue, offer, type JavaPriorityQueue } from './java-priority-queue.ts';

/**
 * What the CEP operator keeps per key besides the shared buffer (Flink's `NFAState`): the queue of partial matches
 * (it always contains the start state), the completed matches a skip strategy may still prune, and two flags the
 * operator reads after processing (`stateChanged`: write the state back; `newStartPartialMatch`: register a
 * timeout timer). Plain data, so it lives in a `ValueState` and survives snapshots.
 */
export interface NFAState {
  partialMatches: JavaPriorityQueue<ComputationState>;
  completedMatches: JavaPriorityQueue<ComputationState>;
  stateChanged: boolean;
  newStartPartialMatch: boolean;
}

export function newNFAState(startStates: readonly ComputationState[]): NFAState {
  const partialMatches = newQueue<ComputationState>();
  for (const s of startStates) offer(partialMatches, s, compareComputationStates);
  return { partialMatches, completedMatches: newQueue(), stateChanged: false, newStartPartialMatch: false };
}

/** A fresh NFA state with one start state per start state name. */
export function initialNFAState(startStateNames: readonly string[]): NFAState {
  return newNFAState(startStateNames.map((name) => createStartState(name)));
}
