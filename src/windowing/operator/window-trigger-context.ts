// WindowTriggerContext: the TriggerContext the window operator hands its trigger, scoped to the current pane.
import { IllegalStateError } from '../../core/errors.ts';
import type { InternalKvState, InternalMergingState } from '../../state/internal-state.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';
import type { NamespaceSerializer } from '../../state/namespace.ts';
import type { State } from '../../core/state.ts';
import type { StateDescriptor } from '../../core/state-descriptor.ts';
import type { InternalTimerService } from '../../time/internal-timer-service.ts';
import type { OnMergeContext, Trigger } from '../trigger.ts';
import type { TriggerResult } from '../trigger-result.ts';
import type { Window } from '../window.ts';

const MERGING_KINDS = new Set(['list', 'reducing', 'aggregating']);

/**
 * Flink's `WindowOperator.Context`: one object per operator, re-pointed at a (key, window) pane before every
 * trigger call. State handles are looked up once per name and cached; each access only re-targets the handle's
 * namespace to the current window, so a trigger's `getPartitionedState` per element costs a Map read.
 */
export class WindowTriggerContext<K, W extends Window> implements OnMergeContext {
  key: K = undefined as K;
  window: W = undefined as unknown as W;
  /** The windows being merged into `window`, set for the duration of `onMerge`. */
  mergedWindows: readonly W[] | undefined = undefined;
  private readonly states = new Map<string, InternalKvState<W>>();

  constructor(
    private readonly backend: KeyedStateBackend,
    private readonly timerService: InternalTimerService<W>,
    private readonly windowSerializer: NamespaceSerializer<W>,
    private readonly trigger: Trigger<any, W>,
  ) {}

  getCurrentProcessingTime(): number {
    return this.timerService.currentProcessingTime();
  }

  getCurrentWatermark(): number {
    return this.timerService.currentWatermark();
  }

  registerProcessingTimeTimer(time: number): void {
    this.timerService.registerProcessingTimeTimer(this.window, time);
  }

  registerEventTimeTimer(time: number): void {
    this.timerService.registerEventTimeTimer(this.window, time);
  }

  deleteProcessingTimeTimer(time: number): void {
    this.timerService.deleteProcessingTimeTimer(this.window, time);
  }

  deleteEventTimeTimer(time: number): void {
    this.timerService.deleteEventTimeTimer(this.window, time);
  }

  getPartitionedState<S extends State>(descriptor: StateDescriptor<S, any>): S {
    const state = this.stateFor(descriptor);
    state.setCurrentNamespace(this.window);
    return state as unknown as S;
  }

  mergePartitionedState(descriptor: StateDescriptor<any, any>): void {
    const merged = this.mergedWindows;
    if (merged === undefined || merged.length === 0) return;
    if (!MERGING_KINDS.has(descriptor.kind)) {
      throw new IllegalStateError(
        `The state descriptor '${descriptor.name}' does not refer to a mergeable state (${descriptor.kind} state cannot merge; use list, reducing or aggregating state)`,
      );
    }
    (this.stateFor(descriptor) as InternalMergingState<W>).mergeNamespaces(this.window, merged);
  }

  onElement(element: unknown, timestamp: number): TriggerResult {
    return this.trigger.onElement(element, timestamp, this.window, this);
  }

  onEventTime(time: number): TriggerResult {
    return this.trigger.onEventTime(time, this.window, this);
  }

  onProcessingTime(time: number): TriggerResult {
    return this.trigger.onProcessingTime(time, this.window, this);
  }

  onMerge(mergedWindows: readonly W[]): void {
    this.mergedWindows = mergedWindows;
    try {
      this.trigger.onMerge(this.window, this);
    } finally {
      this.mergedWindows = undefined;
    }
  }

  clear(): void {
    this.trigger.clear(this.window, this);
  }

  private stateFor(descriptor: StateDescriptor<any, any>): InternalKvState<W> {
    let state = this.states.get(descriptor.name);
    if (state === undefined) {
      state = this.backend.getOrCreateKeyedState(
        descriptor,
        this.windowSerializer,
      ) as unknown as InternalKvState<W>;
      this.states.set(descriptor.name, state);
    }
    return state;
  }
}
