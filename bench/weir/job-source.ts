// The source and sink shared by Weir's workload implementations: the generator's events or bids as a GeneratorSource
// (subtask s of p generates the indices s, s + p, ...; the jobs run it at their parallelism, except batching-timer),
// with the runner's memory probe.
import { BroadcastChannel } from 'node:worker_threads';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import { Types } from '../../src/core/record-type.ts';
import type { Sink } from '../../src/core/sink.ts';
import { LmdbStateBackend } from '../../src/state/lmdb/lmdb-state-backend.ts';
import { ChecksumAccumulator } from '../workloads/checksum.ts';
import {
  type Bid,
  type Event,
  generateBid,
  generateEvent,
  generateNexmarkEvent,
  type NexmarkEvent,
} from '../workloads/generator.ts';
import type { WorkloadParams } from '../workloads/params.ts';

/**
 * The generator's records as declared types (`returns`): in worker mode they cross threads written field by field,
 * as Flink's jobs declare `TypeInformation.of(Event.class)` and get its POJO serializer.
 */
export const EventRecord = Types.recordFromPairs(
  ['id', 'number'],
  ['key', 'number'],
  ['value', 'number'],
  ['ts', 'number'],
);
export const BidRecord = Types.recordFromPairs(
  ['id', 'number'],
  ['auction', 'number'],
  ['bidder', 'number'],
  ['price', 'number'],
  ['ts', 'number'],
);

export const NexmarkEventRecord = Types.recordFromPairs(
  ['kind', 'number'],
  ['id', 'number'],
  ['name', 'string'],
  ['seller', 'number'],
  ['auction', 'number'],
  ['bidder', 'number'],
  ['price', 'number'],
  ['ts', 'number'],
);

/** Records per poll: large enough that the runtime's per-batch cost vanishes. */
const BATCH = 1000;

/**
 * The environment of one workload run: its parallelism, the LMDB state backend when the run asks for it, and
 * checkpointing (aligned, exactly-once, into a FileCheckpointStorage directory) when the run asks for it.
 */
export function benchEnvironment(params: WorkloadParams): StreamExecutionEnvironment {
  const env = StreamExecutionEnvironment.create({ parallelism: params.parallelism });
  if (params.lmdbPath !== undefined) {
    const cache = params.lmdbCacheEntries;
    env.setStateBackend(
      new LmdbStateBackend({
        path: params.lmdbPath,
        ...(cache !== undefined ? { cacheEntries: cache } : {}),
      }),
    );
  }
  const checkpoint = params.checkpoint;
  if (checkpoint !== undefined) {
    const onCompleted = checkpoint.onCompleted;
    env.enableCheckpointing(checkpoint.intervalMs, {
      storage: checkpoint.storage,
      ...(onCompleted === undefined
        ? {}
        : {
            listener: (event) => {
              if (event.type === 'completed') onCompleted(event.durationMs, event.bytesWritten);
            },
          }),
    });
  }
  return env;
}

/** Events 0 .. params.events - 1 in index order, one fresh object each (the job keeps none of them). */
export function eventSource(params: WorkloadParams): GeneratorSource<Event> {
  const probe = params.probe;
  const config = params.stream;
  if (probe === undefined)
    return GeneratorSource.of(params.events, (i) => generateEvent(config, i), { batchSize: BATCH });
  return GeneratorSource.of(
    params.events,
    (i) => {
      if (i === probe.baselineIndex || i === probe.measureIndex) probe.hit(i);
      return generateEvent(config, i);
    },
    { batchSize: BATCH },
  );
}

/** Bids 0 .. params.events - 1 in index order. */
export function bidSource(params: WorkloadParams): GeneratorSource<Bid> {
  const probe = params.probe;
  const config = params.bids;
  if (probe === undefined)
    return GeneratorSource.of(params.events, (i) => generateBid(config, i), { batchSize: BATCH });
  return GeneratorSource.of(
    params.events,
    (i) => {
      if (i === probe.baselineIndex || i === probe.measureIndex) probe.hit(i);
      return generateBid(config, i);
    },
    { batchSize: BATCH },
  );
}

/** Nexmark events (persons, auctions and bids) 0 .. params.events - 1 in index order. */
export function nexmarkSource(params: WorkloadParams): GeneratorSource<NexmarkEvent> {
  const probe = params.probe;
  const config = params.nexmark;
  if (probe === undefined)
    return GeneratorSource.of(params.events, (i) => generateNexmarkEvent(config, i), { batchSize: BATCH });
  return GeneratorSource.of(
    params.events,
    (i) => {
      if (i === probe.baselineIndex || i === probe.measureIndex) probe.hit(i);
      return generateNexmarkEvent(config, i);
    },
    { batchSize: BATCH },
  );
}

/**
 * In worker mode, the BroadcastChannel on which each sink subtask reports its count and hash sum from its worker
 * (set by the runner's weir-p2 around a run; unset, the sink adds to the accumulator on its own thread).
 */
export const CHECKSUM_CHANNEL_ENV = 'WEIR_BENCH_CHECKSUM_CHANNEL';

/** What one sink subtask reports on {@link CHECKSUM_CHANNEL_ENV} when its input ended. */
export interface ChecksumReport {
  readonly subtask: number;
  readonly parallelism: number;
  readonly count: number;
  readonly sum: number;
}

/**
 * A sink that hashes each record into `accumulator` (parallel writers may share it: the sum commutes). In worker
 * mode (weir-p2) each subtask runs in the worker of its slot, as Flink's sink subtasks run in their task managers'
 * slots: it sums into its own accumulator and reports it on the channel named in {@link CHECKSUM_CHANNEL_ENV} at
 * the end of its input, as Flink's job result adds up each subtask's accumulators.
 */
export function checksumSink<T>(accumulator: ChecksumAccumulator, hash: (value: T) => number): Sink<T> {
  const channel = process.env[CHECKSUM_CHANNEL_ENV];
  if (channel === undefined) {
    return { createWriter: () => ({ write: (value: T) => accumulator.add(hash(value)) }) };
  }
  return {
    createWriter: (context) => {
      const own = new ChecksumAccumulator();
      return {
        write: (value: T) => own.add(hash(value)),
        endOfInput: () => {
          const port = new BroadcastChannel(channel);
          const report: ChecksumReport = {
            subtask: context.subtaskIndex,
            parallelism: context.parallelism,
            count: own.count,
            sum: own.sum,
          };
          port.postMessage(report);
          port.close();
        },
      };
    },
  };
}
