// Weir's three latency jobs: the rolling count (an output per event), the batching job (outputs on the size, on a
// later event or on the event-time timer) and CEP (a match once the watermark passes its completing event), each
// from the paced source to a sink that records the latency of every output. The computations are those of
// bench/weir/{rolling-count,batching-timer,cep}.ts; the outputs carry what the sink needs to find their reference
// event, and hash as the throughput jobs' do, so the runs are verified against the limit.
import { CEP } from '../../src/api/cep.ts';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { Pattern } from '../../src/cep/pattern/pattern.ts';
import type {
  Collector,
  KeyedOnTimerContext,
  KeyedProcessContext,
  KeyedProcessFunction,
} from '../../src/core/functions.ts';
import type { RuntimeContext } from '../../src/core/runtime-context.ts';
import type { Sink } from '../../src/core/sink.ts';
import { ValueStateDescriptor } from '../../src/core/state-descriptor.ts';
import type { ValueState } from '../../src/core/state.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import { hashBatch, hashCepMatch, hashRollingCount } from '../workloads/checksum.ts';
import { type Event, generateEvent } from '../workloads/generator.ts';
import type { WorkloadParams } from '../workloads/params.ts';
import { EventRecord } from '../weir/job-source.ts';
import type { LatencyRecorder } from './latency-recorder.ts';
import { PacedSource, type Pacing } from './paced-source.ts';
import type { WatermarkReference } from './watermark-reference.ts';

/** The workloads measured for latency. */
export const LATENCY_WORKLOADS = ['rolling-count', 'batching-timer', 'cep'] as const;
export type LatencyWorkload = (typeof LATENCY_WORKLOADS)[number];

/** What a latency job needs besides the workload's parameters. */
export interface LatencyRun {
  readonly params: WorkloadParams;
  readonly pacing: Pacing;
  readonly recorder: LatencyRecorder;
  /** The batching job's timer outputs again, alone. */
  readonly timerRecorder: LatencyRecorder;
  readonly reference: WatermarkReference;
}

function sink<T>(write: (value: T) => void): Sink<T> {
  return { createWriter: () => ({ write }) };
}

function pacedEvents(env: StreamExecutionEnvironment, run: LatencyRun, watermarks: boolean) {
  const config = run.params.stream;
  const source = new PacedSource(run.pacing, (i) => generateEvent(config, i));
  const strategy = watermarks
    ? WatermarkStrategy.forBoundedOutOfOrderness<Event>(config.outOfOrdernessMs).withTimestampAssigner(
        (e) => e.ts,
      )
    : undefined;
  return env.fromSource(source, strategy, 'events').setParallelism(1).returns(EventRecord);
}

interface KeyCount {
  key: number;
  count: number;
  /** The event counted: the output's reference. */
  id: number;
}

class RollingCount implements KeyedProcessFunction<number, Event, KeyCount> {
  private count!: ValueState<number>;
  open(ctx: RuntimeContext): void {
    this.count = ctx.getState(new ValueStateDescriptor<number>('count', { defaultValue: 0 }));
  }
  processElement(e: Event, _ctx: KeyedProcessContext<number>, out: Collector<KeyCount>): void {
    const count = this.count.value()! + 1;
    this.count.update(count);
    out.collect({ key: e.key, count, id: e.id });
  }
}

interface Batch {
  uid: number;
  count: number;
  firstTs: number;
  /** The event that closed the batch (size or a later event), or -1 when the timer did. */
  closedBy: number;
  /** The timer's time: the event time a watermark had to pass for a timer output. */
  timerTs: number;
}

class BatchState {
  count = 0;
  firstTs = 0;
  timerTs = -1;
}

/** bench/weir/batching-timer.ts's Batcher, with the closing event or the timer in each output. */
class Batcher implements KeyedProcessFunction<number, Event, Batch> {
  private state!: ValueState<BatchState>;
  constructor(
    private readonly size: number,
    private readonly timeoutMs: number,
  ) {}

  open(ctx: RuntimeContext): void {
    this.state = ctx.getState(new ValueStateDescriptor<BatchState>('batch'));
  }

  processElement(e: Event, ctx: KeyedProcessContext<number>, out: Collector<Batch>): void {
    let batch = this.state.value();
    if (batch === undefined) this.state.update((batch = new BatchState()));
    if (batch.count > 0 && e.ts >= batch.timerTs) this.emit(e.key, batch, e.id, ctx, out);
    if (batch.count === 0) {
      batch.firstTs = e.ts;
      batch.timerTs = e.ts + this.timeoutMs;
      ctx.timerService().registerEventTimeTimer(batch.timerTs);
    }
    if (++batch.count === this.size) this.emit(e.key, batch, e.id, ctx, out);
  }

  onTimer(timestamp: number, ctx: KeyedOnTimerContext<number>, out: Collector<Batch>): void {
    const batch = this.state.value();
    if (batch !== undefined && batch.count > 0 && batch.timerTs === timestamp)
      this.emit(ctx.getCurrentKey(), batch, -1, ctx, out);
  }

  private emit(
    uid: number,
    batch: BatchState,
    closedBy: number,
    ctx: KeyedProcessContext<number>,
    out: Collector<Batch>,
  ): void {
    out.collect({ uid, count: batch.count, firstTs: batch.firstTs, closedBy, timerTs: batch.timerTs });
    ctx.timerService().deleteEventTimeTimer(batch.timerTs);
    batch.count = 0;
    batch.timerTs = -1;
  }
}

interface CepMatch {
  key: number;
  probe: number;
  large: number;
  drain: number;
  drainTs: number;
}

/**
 * A match waits for the watermark to pass its completing event (the drain): the first event after which such a
 * watermark could exist, never before the drain itself (the generator guarantees that anyway: no event is late).
 */
function cepReference(watermarkIndex: number, drain: number): number {
  return watermarkIndex < 0 ? -1 : Math.max(watermarkIndex, drain);
}

/** Builds the job of `workload` into a new environment; `execute()` runs it. */
export function buildLatencyJob(workload: LatencyWorkload, run: LatencyRun): StreamExecutionEnvironment {
  const env = StreamExecutionEnvironment.create({ parallelism: 1 });
  const { recorder, timerRecorder, reference, params } = run;
  if (workload === 'rolling-count') {
    pacedEvents(env, run, false)
      .keyBy((e) => e.key)
      .process(new RollingCount())
      .sinkTo(sink((r: KeyCount) => recorder.record(r.id, hashRollingCount(r.key, r.count))));
  } else if (workload === 'batching-timer') {
    pacedEvents(env, run, true)
      .keyBy((e) => e.key)
      .process(new Batcher(params.batching.size, params.batching.timeoutMs))
      .sinkTo(
        sink((b: Batch) => {
          if (b.closedBy >= 0) {
            recorder.record(b.closedBy, hashBatch(b.uid, b.count, b.firstTs));
          } else {
            const fired = reference.indexFor(b.timerTs);
            recorder.record(fired, hashBatch(b.uid, b.count, b.firstTs));
            timerRecorder.recordLatency(fired);
          }
        }),
      );
  } else {
    const { probeBelow, largeAtLeast, drainAtLeast, withinMs } = params.cep;
    const pattern = Pattern.begin<Event, 'probe'>('probe')
      .where((e) => e.value < probeBelow)
      .followedBy('large')
      .where((e) => e.value >= largeAtLeast)
      .followedBy('drain')
      .where((e) => e.value >= drainAtLeast)
      .within(withinMs);
    CEP.pattern(
      pacedEvents(env, run, true).keyBy((e) => e.key),
      pattern,
      (a, b) => a.id - b.id,
    )
      .select((m): CepMatch => ({
        key: m.probe[0]!.key,
        probe: m.probe[0]!.id,
        large: m.large[0]!.id,
        drain: m.drain[0]!.id,
        drainTs: m.drain[0]!.ts,
      }))
      .sinkTo(
        sink((m: CepMatch) =>
          recorder.record(
            cepReference(reference.indexFor(m.drainTs), m.drain),
            hashCepMatch(m.key, m.probe, m.large, m.drain),
          ),
        ),
      );
  }
  return env;
}
