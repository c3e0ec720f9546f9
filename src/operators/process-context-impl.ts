// The contexts process functions see: one reused object per operator whose fields are set before each call.
import { IllegalStateError } from '../core/errors.ts';
import type { KeyedOnTimerContext, TimerService } from '../core/functions.ts';
import type { OutputTag } from '../core/output-tag.ts';
import type { KeyedStateBackend } from '../state/keyed-state-backend.ts';
import { VoidNamespace } from '../state/namespace.ts';
import type { InternalTimerService } from '../time/internal-timer-service.ts';
import { hasTimestamp, type TimeDomain } from '../core/time-domain.ts';
import type { Output } from './output.ts';
import type { OperatorContext } from './stream-operator.ts';

/**
 * Serves `ProcessContext`, `OnTimerContext` and their keyed variants with one object: the operator updates
 * `currentTimestamp` and `currentTimeDomain`, so no context is allocated per record or timer.
 */
export class ProcessContextImpl implements KeyedOnTimerContext<any> {
  currentTimestamp = Number.NaN;
  // Stryker disable next-line StringLiteral: only onTimer contexts expose timeDomain(), and each timer call sets it first
  currentTimeDomain: TimeDomain = 'EVENT_TIME';
  private readonly timers: TimerService;

  constructor(
    private readonly output_: Output<unknown>,
    private readonly operator: OperatorContext,
    private readonly backend: KeyedStateBackend | undefined,
    timerService: InternalTimerService<VoidNamespace> | undefined,
  ) {
    this.timers =
      timerService !== undefined ? keyedTimerService(timerService) : nonKeyedTimerService(operator);
  }

  timestamp(): number | undefined {
    return hasTimestamp(this.currentTimestamp) ? this.currentTimestamp : undefined;
  }

  timerService(): TimerService {
    return this.timers;
  }

  output<X>(tag: OutputTag<X>, value: X): void {
    if (tag === undefined || tag === null) throw new IllegalStateError('ctx.output needs an OutputTag');
    this.output_.collectSide(tag, value, this.currentTimestamp);
  }

  getCurrentKey(): any {
    return this.backend?.getCurrentKey();
  }

  timeDomain(): TimeDomain {
    return this.currentTimeDomain;
  }
}

function keyedTimerService(service: InternalTimerService<VoidNamespace>): TimerService {
  return {
    currentProcessingTime: () => service.currentProcessingTime(),
    currentWatermark: () => service.currentWatermark(),
    registerEventTimeTimer: (time) => service.registerEventTimeTimer(VoidNamespace, time),
    registerProcessingTimeTimer: (time) => service.registerProcessingTimeTimer(VoidNamespace, time),
    deleteEventTimeTimer: (time) => service.deleteEventTimeTimer(VoidNamespace, time),
    deleteProcessingTimeTimer: (time) => service.deleteProcessingTimeTimer(VoidNamespace, time),
  };
}

function nonKeyedTimerService(operator: OperatorContext): TimerService {
  const refuse = (): never => {
    throw new IllegalStateError(
      `Setting timers is only supported on a keyed stream (after keyBy); operator '${operator.operatorName}' is not keyed`,
    );
  };
  return {
    currentProcessingTime: () => operator.clock.now(),
    currentWatermark: () => operator.currentWatermark(),
    registerEventTimeTimer: refuse,
    registerProcessingTimeTimer: refuse,
    deleteEventTimeTimer: refuse,
    deleteProcessingTimeTimer: refuse,
  };
}
