// The source and sink shared by Weir's workload implementations: the generator's events or bids as a parallelism-1
// GeneratorSource (one ordered stream, as one Kafka partition), with the runner's memory probe.
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import type { Sink } from '../../src/core/sink.ts';
import type { ChecksumAccumulator } from '../workloads/checksum.ts';
import { type Bid, type Event, generateBid, generateEvent } from '../workloads/generator.ts';
import type { WorkloadParams } from '../workloads/params.ts';

/** Records per poll: large enough that the runtime's per-batch cost vanishes. */
const BATCH = 1000;

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

/**
 * A sink that hashes each record into `accumulator` (parallel writers may share it: the sum commutes). In worker
 * mode it runs on the main thread, where the accumulator is read.
 */
export function checksumSink<T>(accumulator: ChecksumAccumulator, hash: (value: T) => number): Sink<T> {
  return {
    createWriter: () => ({ write: (value: T) => accumulator.add(hash(value)) }),
    runsOnMainThread: true,
  };
}
