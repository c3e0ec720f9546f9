// Weir's three latency jobs: the rolling count (an output per event), the batching job (outputs on the size, on a
// later event or on the event-time timer) and CEP (a match once the watermark passes its completing event), each
// from the paced source to a sink that records the latency of every output. The computations are those of
// bench/weir/{rolling-count,batching-timer,cep}.ts, whose functions and pattern they use; the outputs carry what the
// sink needs to find their reference event, and hash as the throughput jobs' do, so the runs are verified against
// the limit.
import { CEP } from '../../src/api/cep.ts';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import type { Sink } from '../../src/core/sink.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import { hashBatch, hashCepMatch, hashRollingCount } from '../workloads/checksum.ts';
import { type Event, generateEvent } from '../workloads/generator.ts';
import type { WorkloadParams } from '../workloads/params.ts';
import { Batcher } from '../weir/batching-timer.ts';
import { byEventId, cepPattern } from '../weir/cep.ts';
import { EventRecord } from '../weir/job-source.ts';
import { RollingCount } from '../weir/rolling-count.ts';
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

interface Batch {
  uid: number;
  count: number;
  firstTs: number;
  /** The event that closed the batch (size or a later event), or -1 when the timer did. */
  closedBy: number;
  /** The timer's time: the event time a watermark had to pass for a timer output. */
  timerTs: number;
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
      .process(new RollingCount((e, count): KeyCount => ({ key: e.key, count, id: e.id })))
      .sinkTo(sink((r: KeyCount) => recorder.record(r.id, hashRollingCount(r.key, r.count))));
  } else if (workload === 'batching-timer') {
    pacedEvents(env, run, true)
      .keyBy((e) => e.key)
      .process(
        new Batcher(params.batching.size, params.batching.timeoutMs, (uid, b, closedBy): Batch => ({
          uid,
          count: b.count,
          firstTs: b.firstTs,
          closedBy,
          timerTs: b.timerTs,
        })),
      )
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
    CEP.pattern(
      pacedEvents(env, run, true).keyBy((e) => e.key),
      cepPattern(params.cep),
      byEventId,
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
