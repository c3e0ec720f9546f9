// WindowProcessContext: the context a ProcessWindowFunction sees, re-pointed at each window it evaluates.
import { IllegalStateError } from '../../core/errors.ts';
import type { OutputTag } from '../../core/output-tag.ts';
import type { RuntimeContext } from '../../core/runtime-context.ts';
import type { Output } from '../../operators/output.ts';
import type { InternalKvState } from '../../state/internal-state.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';
import type { NamespaceSerializer } from '../../state/namespace.ts';
import type { StateDescriptor } from '../../core/state-descriptor.ts';
import type { InternalTimerService } from '../../time/internal-timer-service.ts';
import type { KeyedStateStore, ProcessWindowContext } from '../process-window-function.ts';
import type { Window } from '../window.ts';

/**
 * Flink's `WindowOperator.WindowContext` with its per-window state store: one object per operator whose
 * `window` the operator sets before each call to the window function (and to its `clear`).
 */
export class WindowProcessContext<W extends Window> implements ProcessWindowContext<W> {
  window: W = undefined as unknown as W;
  private readonly perWindow: KeyedStateStore;

  constructor(
    private readonly sideOutput: Output<unknown>,
    private readonly timerService: InternalTimerService<W>,
    private readonly runtimeContext: RuntimeContext,
    backend: KeyedStateBackend,
    windowSerializer: NamespaceSerializer<W>,
    merging: boolean,
    operatorName: string,
  ) {
    this.perWindow = merging
      ? mergingWindowStateStore(operatorName)
      : perWindowStateStore(backend, windowSerializer, () => this.window);
  }

  currentProcessingTime(): number {
    return this.timerService.currentProcessingTime();
  }

  currentWatermark(): number {
    return this.timerService.currentWatermark();
  }

  windowState(): KeyedStateStore {
    return this.perWindow;
  }

  globalState(): KeyedStateStore {
    return this.runtimeContext;
  }

  output<X>(tag: OutputTag<X>, value: X): void {
    this.sideOutput.collectSide(tag, value, this.window.maxTimestamp());
  }
}

/** State of the current key in the namespace of the current window (Flink's PerWindowStateStore). */
function perWindowStateStore<W>(
  backend: KeyedStateBackend,
  windowSerializer: NamespaceSerializer<W>,
  currentWindow: () => W,
): KeyedStateStore {
  const get = (descriptor: StateDescriptor<any, any>): any => {
    const state = backend.getOrCreateKeyedState(
      descriptor,
      windowSerializer,
    ) as unknown as InternalKvState<W>;
    state.setCurrentNamespace(currentWindow());
    return state;
  };
  return {
    getState: get,
    getListState: get,
    getMapState: get,
    getReducingState: get,
    getAggregatingState: get,
  };
}

/** Merging windows move their contents between namespaces, so per-window state is refused (as in Flink). */
function mergingWindowStateStore(operatorName: string): KeyedStateStore {
  const refuse = (): never => {
    throw new IllegalStateError(
      `Operator '${operatorName}': per-window state is not allowed when using merging windows.`,
    );
  };
  return {
    getState: refuse,
    getListState: refuse,
    getMapState: refuse,
    getReducingState: refuse,
    getAggregatingState: refuse,
  };
}
