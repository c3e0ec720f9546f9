// Weir's workload 7 (the seed's per-user batching in event time): a KeyedProcessFunction with ValueState and one
// event-time timer per key, deleted on the size path.
// Run: npm run bench -- --system limit,weir --workload batching-timer (or: node --import tsx bench/weir/batching-timer.ts)
import type {
  Collector,
  KeyedOnTimerContext,
  KeyedProcessContext,
  KeyedProcessFunction,
} from '../../src/core/functions.ts';
import type { RuntimeContext } from '../../src/core/runtime-context.ts';
import { ValueStateDescriptor } from '../../src/core/state-descriptor.ts';
import type { ValueState } from '../../src/core/state.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import { ChecksumAccumulator, hashBatch, type WorkloadResult } from '../workloads/checksum.ts';
import type { Event } from '../workloads/generator.ts';
import { defaultParams, type WorkloadParams } from '../workloads/params.ts';
import { benchEnvironment, checksumSink, EventRecord, eventSource } from './job-source.ts';
import { reportStandalone } from './standalone.ts';

interface Batch {
  uid: number;
  count: number;
  firstTs: number;
}

/** One state object per user: count, first timestamp and the pending timer (one state lookup per event). */
export class BatchState {
  count = 0;
  firstTs = 0;
  timerTs = -1;
}

/**
 * The batching job's function. `output` shapes what a closed batch emits from its key, its state and what closed
 * it: the id of the event that did (on the size or a later event), or -1 for the timer (the latency job needs it).
 */
export class Batcher<O> implements KeyedProcessFunction<number, Event, O> {
  private state!: ValueState<BatchState>;
  constructor(
    private readonly size: number,
    private readonly timeoutMs: number,
    private readonly output: (uid: number, batch: BatchState, closedBy: number) => O,
  ) {}

  open(ctx: RuntimeContext): void {
    // The class declared, so a checkpoint restores BatchState instances (and LMDB keeps them past its cache).
    this.state = ctx.getState(new ValueStateDescriptor<BatchState>('batch', { type: BatchState }));
  }

  processElement(e: Event, ctx: KeyedProcessContext<number>, out: Collector<O>): void {
    let batch = this.state.value();
    if (batch === undefined) this.state.update((batch = new BatchState()));
    // An event at or past the pending timer's time closes the batch first, so results cannot depend on when
    // watermarks happen to be emitted (the benchmark's definition, docs/performance.md).
    if (batch.count > 0 && e.ts >= batch.timerTs) this.emit(e.key, batch, e.id, ctx, out);
    if (batch.count === 0) {
      batch.firstTs = e.ts;
      batch.timerTs = e.ts + this.timeoutMs;
      ctx.timerService().registerEventTimeTimer(batch.timerTs);
    }
    if (++batch.count === this.size) this.emit(e.key, batch, e.id, ctx, out);
  }

  onTimer(timestamp: number, ctx: KeyedOnTimerContext<number>, out: Collector<O>): void {
    const batch = this.state.value();
    if (batch !== undefined && batch.count > 0 && batch.timerTs === timestamp)
      this.emit(ctx.getCurrentKey(), batch, -1, ctx, out);
  }

  private emit(
    uid: number,
    batch: BatchState,
    closedBy: number,
    ctx: KeyedProcessContext<number>,
    out: Collector<O>,
  ): void {
    out.collect(this.output(uid, batch, closedBy));
    ctx.timerService().deleteEventTimeTimer(batch.timerTs);
    batch.count = 0;
    batch.timerTs = -1;
  }
}

export async function batchingTimerWeir(params: WorkloadParams): Promise<WorkloadResult> {
  const { size, timeoutMs } = params.batching;
  const env = benchEnvironment(params);
  const accumulator = new ChecksumAccumulator();
  env
    .fromSource(
      eventSource(params),
      WatermarkStrategy.forBoundedOutOfOrderness<Event>(params.stream.outOfOrdernessMs).withTimestampAssigner(
        (e) => e.ts,
      ),
      'events',
    )
    // One ordered source at every parallelism: a batch depends on the order of its key's events.
    .setParallelism(1)
    .returns(EventRecord)
    .keyBy((e) => e.key)
    .process(new Batcher(size, timeoutMs, (uid, b): Batch => ({ uid, count: b.count, firstTs: b.firstTs })))
    .sinkTo(checksumSink(accumulator, (b: Batch) => hashBatch(b.uid, b.count, b.firstTs)));
  const job = await env.execute('batching-timer');
  return accumulator.result(params.events, job.workerStartupMs);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await reportStandalone(
    'batching-timer',
    batchingTimerWeir,
    defaultParams(Number(process.argv[2] ?? 4_000_000)),
  );
}
