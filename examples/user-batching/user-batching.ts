// The per-user batching job: emit a user's count at 500 events, or 12 hours after the batch's first event.
import {
  ValueStateDescriptor,
  type DataStream,
  type KeyedProcessFunction,
  type ValueState,
} from '../../src/index.ts';

export interface UserEvent {
  readonly uid: string;
  readonly ts: number;
}

export interface UserBatch {
  readonly uid: string;
  readonly count: number;
  /** Processing time at which the batch was emitted. */
  readonly timestamp: number;
}

export const BATCH_SIZE = 500;
export const BATCH_TIMEOUT_MS = 12 * 60 * 60 * 1000;

/**
 * One function instance serves every key of its subtask; the runtime sets the current key before each record
 * and each timer, so `count` and `timer` always read the right user's entry and a timer fires for its own user.
 */
export class UserBatcher implements KeyedProcessFunction<string, UserEvent, UserBatch> {
  private count!: ValueState<number>;
  private timer!: ValueState<number>;

  constructor(
    private readonly batchSize = BATCH_SIZE,
    private readonly timeoutMs = BATCH_TIMEOUT_MS,
  ) {}

  open(ctx: import('../../src/index.ts').RuntimeContext): void {
    this.count = ctx.getState(new ValueStateDescriptor<number>('count', { defaultValue: 0 }));
    this.timer = ctx.getState(new ValueStateDescriptor<number>('timer'));
  }

  processElement(
    _event: UserEvent,
    ctx: import('../../src/index.ts').KeyedProcessContext<string>,
    out: import('../../src/index.ts').Collector<UserBatch>,
  ): void {
    const count = this.count.value()! + 1;
    this.count.update(count);
    if (count === 1) {
      const at = ctx.timerService().currentProcessingTime() + this.timeoutMs;
      ctx.timerService().registerProcessingTimeTimer(at);
      this.timer.update(at);
    }
    if (count >= this.batchSize) {
      out.collect({ uid: ctx.getCurrentKey(), count, timestamp: ctx.timerService().currentProcessingTime() });
      const pending = this.timer.value();
      if (pending !== undefined) ctx.timerService().deleteProcessingTimeTimer(pending);
      this.count.clear();
      this.timer.clear();
    }
  }

  onTimer(
    timestamp: number,
    ctx: import('../../src/index.ts').KeyedOnTimerContext<string>,
    out: import('../../src/index.ts').Collector<UserBatch>,
  ): void {
    const count = this.count.value()!;
    if (count > 0) out.collect({ uid: ctx.getCurrentKey(), count, timestamp });
    this.count.clear();
    this.timer.clear();
  }
}

/** The pipeline: key by user, batch. */
export function userBatching(
  events: DataStream<UserEvent>,
  batchSize = BATCH_SIZE,
  timeoutMs = BATCH_TIMEOUT_MS,
): DataStream<UserBatch> {
  return events
    .keyBy((e) => e.uid)
    .process(new UserBatcher(batchSize, timeoutMs), 'User batcher')
    .uid('user-batcher');
}
