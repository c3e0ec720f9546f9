// KeyedOperatorHarness: drives one keyed operator instance directly (Flink's KeyedOneInputStreamOperatorTestHarness).
import { defaultLogger } from '../../src/core/logger.ts';
import type { KeySelector } from '../../src/core/functions.ts';
import type { OutputTag } from '../../src/core/output-tag.ts';
import { RuntimeContextImpl } from '../../src/operators/runtime-context-impl.ts';
import type { OperatorContext, OneInputStreamOperator } from '../../src/operators/stream-operator.ts';
import { HeapKeyedStateBackend } from '../../src/state/heap/heap-keyed-state-backend.ts';
import { DEFAULT_MAX_PARALLELISM, KeyGroupRange } from '../../src/state/key-group-range.ts';
import type { KeyGroupSnapshot, KeyedStateBackend } from '../../src/state/keyed-state-backend.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { MIN_WATERMARK } from '../../src/core/time-domain.ts';
import { TimerServiceManager } from '../../src/time/timer-service-manager.ts';
import { DISCARDING_METRIC_SINK, MetricGroupImpl } from '../../src/metrics/metric-group.ts';

/** One emitted element: a record or a watermark. */
export type HarnessOutput<T> = { value: T; timestamp: number } | { watermark: number };

/** A snapshot of the keyed state and timers of one harness. */
export interface HarnessSnapshot {
  readonly state: KeyGroupSnapshot[];
  readonly timers: KeyGroupSnapshot[];
  readonly processingTime: number;
}

/** Creates the keyed state backend of a harness (the heap backend unless a test passes another). */
export type HarnessBackendFactory = (
  maxParallelism: number,
  range: KeyGroupRange,
  clock: () => number,
) => KeyedStateBackend;

/**
 * Runs a single keyed operator with a heap backend (or the one `options.backend` creates), real timer services and a
 * manual clock; used by the windowing and CEP tests to replay Flink's operator tests step by step (elements,
 * watermarks, processing time, snapshot and restore) without building a job.
 */
export class KeyedOperatorHarness<IN, OUT> {
  readonly output: HarnessOutput<OUT>[] = [];
  readonly sideOutputs = new Map<string, { value: unknown; timestamp: number }[]>();
  readonly clock: ManualClock;
  readonly backend: KeyedStateBackend;
  readonly timers: TimerServiceManager;
  readonly operator: OneInputStreamOperator<IN, OUT>;
  private watermark = MIN_WATERMARK;
  private readonly ownBackend: boolean;

  constructor(
    createOperator: () => OneInputStreamOperator<IN, OUT>,
    private readonly keySelector: KeySelector<IN, unknown>,
    options: {
      maxParallelism?: number;
      processingTime?: number;
      restore?: HarnessSnapshot;
      backend?: HarnessBackendFactory;
    } = {},
  ) {
    const maxParallelism = options.maxParallelism ?? DEFAULT_MAX_PARALLELISM;
    this.clock = new ManualClock(options.restore?.processingTime ?? options.processingTime ?? 0);
    const range = new KeyGroupRange(0, maxParallelism - 1);
    const clock = (): number => this.clock.now();
    this.ownBackend = options.backend !== undefined;
    this.backend =
      options.backend?.(maxParallelism, range, clock) ??
      new HeapKeyedStateBackend(maxParallelism, range, clock, 'window');
    this.timers = new TimerServiceManager(this.backend as never, this.clock, (fire) => fire());
    if (options.restore !== undefined) {
      this.backend.restore(options.restore.state);
      this.timers.restore(options.restore.timers);
    }
    this.operator = createOperator();
    this.operator.timerServices = this.timers;
    const harness = this;
    const metricGroup = new MetricGroupImpl(DISCARDING_METRIC_SINK, 'operator', {}, ['window', '0']);
    const context: OperatorContext = {
      operatorName: 'window',
      uid: 'window',
      logger: defaultLogger(),
      subtaskIndex: 0,
      parallelism: 1,
      maxParallelism,
      clock: this.clock,
      keyedStateBackend: this.backend,
      currentWatermark: () => harness.watermark,
      getInternalTimerService: (name, serializer, triggerable) =>
        harness.timers.getInternalTimerService(name, serializer, triggerable),
      runtimeContext: new RuntimeContextImpl('window', 0, 1, maxParallelism, this.backend, metricGroup),
      metricGroup,
      failJob: (error) => {
        throw error;
      },
      setBackpressure: () => {},
    };
    this.operator.setup(context, {
      collect: (value, timestamp) => void harness.output.push({ value, timestamp }),
      collectSide: (tag: OutputTag<unknown>, value, timestamp) => {
        let list = harness.sideOutputs.get(tag.id);
        if (list === undefined) harness.sideOutputs.set(tag.id, (list = []));
        list.push({ value, timestamp });
      },
      emitWatermark: (watermark) => void harness.output.push({ watermark }),
      emitWatermarkStatus: () => {},
    });
    const opened = this.operator.open();
    if (opened instanceof Promise) throw new Error('KeyedOperatorHarness supports synchronous open() only');
  }

  processElement(value: IN, timestamp: number): void {
    this.backend.setCurrentKey(this.keySelector(value));
    this.operator.processElement(value, timestamp);
  }

  processWatermark(watermark: number): void {
    this.watermark = watermark;
    this.operator.processWatermark(watermark);
  }

  setProcessingTime(time: number): void {
    this.clock.advanceTo(time);
  }

  /** Records only (no watermarks), in emission order. */
  records(): { value: OUT; timestamp: number }[] {
    return this.output.filter((o): o is { value: OUT; timestamp: number } => 'value' in o);
  }

  sideOutput<X>(tag: OutputTag<X>): { value: X; timestamp: number }[] {
    return (this.sideOutputs.get(tag.id) ?? []) as { value: X; timestamp: number }[];
  }

  snapshot(): HarnessSnapshot {
    this.operator.prepareKeyedStateSnapshot();
    return {
      state: this.backend.snapshot(),
      timers: this.timers.snapshot(this.backend.maxParallelism),
      processingTime: this.clock.now(),
    };
  }

  /** Entries a snapshot taken now would hold (the operator first writes what it keeps on the heap). */
  numKeyedStateEntries(): number {
    this.operator.prepareKeyedStateSnapshot();
    return this.backend.numStateEntries();
  }

  numEventTimeTimers(): number {
    return this.timers.numEventTimeTimers();
  }

  numProcessingTimeTimers(): number {
    return this.timers.numProcessingTimeTimers();
  }

  close(): void {
    const closed = this.operator.close();
    if (closed instanceof Promise) throw new Error('KeyedOperatorHarness supports synchronous close() only');
    this.timers.stop();
    // a backend the test chose may hold files (LMDB); the heap backend stays readable after close
    if (this.ownBackend) this.backend.dispose();
  }
}
