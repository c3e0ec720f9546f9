// TestHarness: drives a pipeline one step at a time with controlled processing time, as Flink's operator harnesses.
import { DataStream } from '../api/data-stream.ts';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import type { OutputTag } from '../core/output-tag.ts';
import { Transformation } from '../graph/transformation.ts';
import { JobRuntime } from '../runtime/job-runtime.ts';
import type { JobSnapshot } from '../runtime/job-snapshot.ts';
import { PassThroughOperator } from '../operators/pass-through-operator.ts';
import type { Subtask } from '../runtime/subtask.ts';
import { ManualClock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { MAX_WATERMARK, NO_TIMESTAMP } from '../core/time-domain.ts';
import type { WatermarkEmissionMode } from '../time/watermark-emission.ts';
import { HarnessSinkOperator, type HarnessElement } from './harness-sink-operator.ts';
import { keyGroupFor, normalizeKey } from '../state/key-hash.ts';

/** Options of a harness. */
export interface TestHarnessOptions {
  /** Default parallelism of the pipeline's operators (default 1). */
  parallelism?: number;
  /** Number of key groups (default 128). */
  maxParallelism?: number;
  /** Periodic watermark interval for strategies inside the pipeline (default 200 ms of manual processing time). */
  autoWatermarkInterval?: number;
  /** Records between periodic watermarks in deterministic mode (default 100), as the environment option. */
  autoWatermarkRecords?: number;
  /**
   * The periodic watermark rule, as the environment option (default `'deterministic'`). Harness inputs are fed
   * by hand and count as unbounded, so in both modes `setProcessingTime` also drives periodic emission.
   */
  watermarkEmission?: WatermarkEmissionMode;
  /** The manual clock's start time (default 0). */
  initialProcessingTime?: number;
  /** Where the pipeline's operators log (default: the environment's default logger, on standard error). */
  logger?: Logger;
}

/** A pending timer as the harness lists it (Flink's `InternalTimer`, with where it lives). */
export interface HarnessTimer {
  /** The name of the operator whose timer service holds it. */
  readonly operator: string;
  /** The operator's subtask (0-based). */
  readonly subtask: number;
  /** The timer service's name (`'user-timers'` for process functions, `'window-timers'` for windows, …). */
  readonly service: string;
  readonly timestamp: number;
  readonly key: unknown;
  /** The key group of the key (under the pipeline's max parallelism). */
  readonly keyGroup: number;
  /** The namespace: a window for window timers, `0` (VoidNamespace) for a process function's timers. */
  readonly namespace: unknown;
}

/** Which timers to list or count; every given field must match (the namespace and key by value). */
export interface HarnessTimerQuery {
  operator?: string;
  service?: string;
  key?: unknown;
  keyGroup?: number;
  namespace?: unknown;
}

/** A side-output record as the harness reports it. */
export interface HarnessRecord<T> {
  value: T;
  timestamp: number | undefined;
}

/**
 * Runs any pipeline on the real runtime, fed by hand. Processing time only moves with `setProcessingTime`, so
 * processing-time timers fire exactly then. Snapshots restore into a new harness, at any parallelism.
 *
 * @example
 * const h = await TestHarness.create((input: DataStream<number>) => input.keyBy((n) => n % 2).reduce((a, b) => a + b));
 * h.processElement(1, 10);
 * h.processElement(3, 20);
 * h.records(); // [1, 4]
 */
export class TestHarness<OUT> {
  private readonly outputs: HarnessElement<OUT>[] = [];
  private readonly sides = new Map<string, HarnessRecord<unknown>[]>();
  private runtime!: JobRuntime;
  private inputs: Subtask[] = [];
  private readonly clock: ManualClock;
  private closed = false;

  /** @internal Use TestHarness.create or TestHarness.createTwoInput. */
  constructor(options: TestHarnessOptions) {
    this.clock = new ManualClock(options.initialProcessingTime ?? 0);
  }

  /** A harness for a one-input pipeline. */
  static async create<IN, OUT>(
    build: (input: DataStream<IN>) => DataStream<OUT>,
    options: TestHarnessOptions = {},
  ): Promise<OneInputTestHarness<IN, OUT>> {
    const harness = new OneInputTestHarness<IN, OUT>(options);
    await harness.start((env, inputs) => build(inputs[0]!), 1, options, undefined);
    return harness;
  }

  /** Restores a one-input harness from `snapshot()`; `options` may change the parallelism. */
  static async restore<IN, OUT>(
    build: (input: DataStream<IN>) => DataStream<OUT>,
    snapshot: JobSnapshot,
    options: TestHarnessOptions = {},
  ): Promise<OneInputTestHarness<IN, OUT>> {
    const harness = new OneInputTestHarness<IN, OUT>(options);
    await harness.start((env, inputs) => build(inputs[0]!), 1, options, snapshot);
    return harness;
  }

  /** A harness for a pipeline over two inputs (connected streams). */
  static async createTwoInput<IN1, IN2, OUT>(
    build: (first: DataStream<IN1>, second: DataStream<IN2>) => DataStream<OUT>,
    options: TestHarnessOptions = {},
  ): Promise<TwoInputTestHarness<IN1, IN2, OUT>> {
    const harness = new TwoInputTestHarness<IN1, IN2, OUT>(options);
    await harness.start((env, inputs) => build(inputs[0]!, inputs[1]!), 2, options, undefined);
    return harness;
  }

  /** Restores a two-input harness from `snapshot()`. */
  static async restoreTwoInput<IN1, IN2, OUT>(
    build: (first: DataStream<IN1>, second: DataStream<IN2>) => DataStream<OUT>,
    snapshot: JobSnapshot,
    options: TestHarnessOptions = {},
  ): Promise<TwoInputTestHarness<IN1, IN2, OUT>> {
    const harness = new TwoInputTestHarness<IN1, IN2, OUT>(options);
    await harness.start((env, inputs) => build(inputs[0]!, inputs[1]!), 2, options, snapshot);
    return harness;
  }

  /** @internal */
  protected async start(
    build: (env: StreamExecutionEnvironment, inputs: DataStream<any>[]) => DataStream<OUT>,
    inputCount: number,
    options: TestHarnessOptions,
    snapshot: JobSnapshot | undefined,
  ): Promise<void> {
    const env = StreamExecutionEnvironment.create({
      clock: this.clock,
      ...(options.parallelism !== undefined ? { parallelism: options.parallelism } : {}),
      ...(options.maxParallelism !== undefined ? { maxParallelism: options.maxParallelism } : {}),
      ...(options.autoWatermarkInterval !== undefined
        ? { autoWatermarkInterval: options.autoWatermarkInterval }
        : {}),
      ...(options.autoWatermarkRecords !== undefined
        ? { autoWatermarkRecords: options.autoWatermarkRecords }
        : {}),
      ...(options.watermarkEmission !== undefined ? { watermarkEmission: options.watermarkEmission } : {}),
    });
    const inputTransformations: Transformation[] = [];
    const streams: DataStream<any>[] = [];
    for (let i = 0; i < inputCount; i++) {
      const t = new Transformation(
        'source',
        inputCount === 1 ? 'Harness Input' : `Harness Input ${i + 1}`,
        [],
      );
      t.operatorFactory = () => new PassThroughOperator();
      t.forceSingleParallelism = true;
      t.uid = `harness-input-${i + 1}`;
      inputTransformations.push(t);
      streams.push(new DataStream(env, t));
    }
    const out = build(env, streams);
    const sinkT = new Transformation('sink', 'Harness Output', [out.transformation]);
    sinkT.operatorFactory = () => new HarnessSinkOperator<OUT>(this.outputs);
    sinkT.forceSingleParallelism = true;
    sinkT.uid = 'harness-output';
    const graph = env.buildGraph([sinkT]);
    this.runtime = new JobRuntime(graph, {
      clock: this.clock,
      ...(options.logger !== undefined ? { logger: options.logger } : {}),
      ...(snapshot !== undefined ? { restoreFrom: snapshot } : {}),
      sideTap: (tagId, value, timestamp) => {
        let list = this.sides.get(tagId);
        if (list === undefined) this.sides.set(tagId, (list = []));
        list.push({ value, timestamp: Number.isNaN(timestamp) ? undefined : timestamp });
      },
    });
    await this.runtime.open();
    this.inputs = inputTransformations.map((t) => this.runtime.subtasksOf(graph.nodeOf(t))[0]!);
  }

  /** @internal */
  protected pushElement(input: number, value: unknown, timestamp: number | undefined): void {
    this.checkOpen();
    this.inputs[input]!.output.collect(value, timestamp ?? NO_TIMESTAMP);
  }

  /** @internal */
  protected pushWatermark(input: number, watermark: number): void {
    this.checkOpen();
    this.inputs[input]!.output.emitWatermark(watermark);
  }

  /** @internal */
  protected pushEnd(input: number): void {
    this.checkOpen();
    const subtask = this.inputs[input]!;
    subtask.output.emitWatermark(MAX_WATERMARK);
    subtask.finish();
  }

  /**
   * Waits until every operator that finishes asynchronously (async I/O, async sinks) has finished after
   * `endInput`, then rethrows the job's failure, if any (including one raised by an asynchronous callback).
   */
  async drain(): Promise<void> {
    await this.runtime.settleFinishes();
    if (this.runtime.hasFailed) throw this.runtime.failureCause;
  }

  /** The job's failure raised outside a record call (an async result, a timer), if any. */
  failure(): unknown {
    return this.runtime.failureCause;
  }

  /** Moves processing time to `time`, firing every processing-time timer due by then, in order. */
  setProcessingTime(time: number): void {
    this.checkOpen();
    this.clock.advanceTo(time);
    if (this.runtime.hasFailed) throw this.runtime.failureCause;
  }

  /** Processing-time callbacks scheduled and not yet run nor cancelled (timers, async timeouts and retries). */
  pendingProcessingTimeCallbacks(): number {
    return this.clock.pendingCount();
  }

  /** The current processing time. */
  getProcessingTime(): number {
    return this.clock.now();
  }

  /** Everything the pipeline emitted on its main output, in order: records and watermarks. */
  output(): HarnessElement<OUT>[] {
    return [...this.outputs];
  }

  /** Just the values of the main output's records. */
  records(): OUT[] {
    const values: OUT[] = [];
    for (const e of this.outputs) if ('value' in e) values.push(e.value);
    return values;
  }

  /** Records emitted to a side output by any operator of the pipeline. */
  sideOutput<X>(tag: OutputTag<X>): HarnessRecord<X>[] {
    return [...((this.sides.get(tag.id) ?? []) as HarnessRecord<X>[])];
  }

  /** Forgets the output collected so far (main and side outputs). */
  clearOutput(): void {
    this.outputs.length = 0;
    this.sides.clear();
  }

  /** All keyed state and timers, by operator and key group: pass to `TestHarness.restore`. */
  snapshot(): JobSnapshot {
    this.checkOpen();
    return this.runtime.snapshot();
  }

  /**
   * Keyed state entries across all operators and subtasks (Flink: numKeyedStateEntries): what a snapshot taken now
   * would hold, so operators first write what they keep on the heap (`prepareKeyedStateSnapshot`).
   */
  numKeyedStateEntries(): number {
    let n = 0;
    for (const list of this.runtime.subtasks.values()) {
      for (const s of list) {
        if (s.backend === undefined) continue;
        s.operator.prepareKeyedStateSnapshot();
        n += s.backend.numStateEntries();
      }
    }
    return n;
  }

  /**
   * Event-time timers pending across all operators and subtasks, or only those of `namespace` when one is given
   * (Flink's `numEventTimeTimers()` / `numEventTimeTimers(namespace)`, e.g. a window). Timers restored for a timer
   * service no operator has asked for yet count in the total only.
   */
  numEventTimeTimers(namespace?: unknown): number {
    if (arguments.length > 0) return this.eventTimeTimers({ namespace }).length;
    let n = 0;
    for (const list of this.runtime.subtasks.values())
      for (const s of list) n += s.timers?.numEventTimeTimers() ?? 0;
    return n;
  }

  /** Processing-time timers pending, in all or only in `namespace`; as {@link numEventTimeTimers}. */
  numProcessingTimeTimers(namespace?: unknown): number {
    if (arguments.length > 0) return this.processingTimeTimers({ namespace }).length;
    let n = 0;
    for (const list of this.runtime.subtasks.values())
      for (const s of list) n += s.timers?.numProcessingTimeTimers() ?? 0;
    return n;
  }

  /**
   * The pending event-time timers matching `query` (all by default), in firing order per timer service: keyed
   * operators' and custom operators' internal timer services alike.
   *
   * @example
   * h.eventTimeTimers({ key: 'alice' }); // [{ operator: 'KeyedProcess', service: 'user-timers', timestamp: 60_000, key: 'alice', keyGroup: 41, namespace: 0, subtask: 0 }]
   */
  eventTimeTimers(query: HarnessTimerQuery = {}): HarnessTimer[] {
    return this.listTimers('event', query);
  }

  /** The pending processing-time timers matching `query`; as {@link eventTimeTimers}. */
  processingTimeTimers(query: HarnessTimerQuery = {}): HarnessTimer[] {
    return this.listTimers('processing', query);
  }

  private listTimers(domain: 'event' | 'processing', query: HarnessTimerQuery): HarnessTimer[] {
    const key = 'key' in query ? normalizeKey(query.key) : undefined;
    const found: HarnessTimer[] = [];
    for (const [node, list] of this.runtime.subtasks) {
      if (query.operator !== undefined && node.name !== query.operator) continue;
      for (const subtask of list) {
        subtask.timers?.forEachTimer(domain, (service, timer) => {
          if (query.service !== undefined && service.name !== query.service) return;
          if (key !== undefined && timer.normalizedKey !== key) return;
          const keyGroup = keyGroupFor(timer.normalizedKey, node.maxParallelism);
          if (query.keyGroup !== undefined && keyGroup !== query.keyGroup) return;
          if (
            'namespace' in query &&
            service.namespaceSerializer.key(query.namespace) !==
              service.namespaceSerializer.key(timer.namespace)
          )
            return;
          found.push({
            operator: node.name,
            subtask: subtask.index,
            service: service.name,
            timestamp: timer.timestamp,
            key: timer.key,
            keyGroup,
            namespace: timer.namespace,
          });
        });
      }
    }
    return found;
  }

  /** Runs every function's `close`. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.runtime.close();
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('The harness is closed');
  }
}

/** A harness over one input. */
export class OneInputTestHarness<IN, OUT> extends TestHarness<OUT> {
  /** Pushes a record (with an event timestamp, or none). */
  processElement(value: IN, timestamp?: number): void {
    this.pushElement(0, value, timestamp);
  }

  /** Pushes a watermark. */
  processWatermark(watermark: number): void {
    this.pushWatermark(0, watermark);
  }

  /** Ends the input: the final watermark, then end of input (as a bounded source does). */
  endInput(): void {
    this.pushEnd(0);
  }
}

/** A harness over two inputs. */
export class TwoInputTestHarness<IN1, IN2, OUT> extends TestHarness<OUT> {
  processElement1(value: IN1, timestamp?: number): void {
    this.pushElement(0, value, timestamp);
  }
  processElement2(value: IN2, timestamp?: number): void {
    this.pushElement(1, value, timestamp);
  }
  processWatermark1(watermark: number): void {
    this.pushWatermark(0, watermark);
  }
  processWatermark2(watermark: number): void {
    this.pushWatermark(1, watermark);
  }
  /** Ends both inputs. */
  endInput(): void {
    this.pushEnd(0);
    this.pushEnd(1);
  }
  endInput1(): void {
    this.pushEnd(0);
  }
  endInput2(): void {
    this.pushEnd(1);
  }
}
