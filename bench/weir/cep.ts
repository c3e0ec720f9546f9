// Weir's workload 6 (CEP: probe → followedBy large → followedBy drain, within 2 s, per key, noSkip): the CEP
// operator in event time with the shared buffer in keyed state.
// Run: npm run bench -- --system limit,weir --workload cep (or alone: node --import tsx bench/weir/cep.ts [events]
// [keys], keys 10,000 by default: with 1,000,000 keys nearly every element is its key's only one)
import { CEP } from '../../src/api/cep.ts';
import { Pattern } from '../../src/cep/pattern/pattern.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import { benchAlignment } from './worker-alignment.ts';
import { ChecksumAccumulator, hashCepMatch, type WorkloadResult } from '../workloads/checksum.ts';
import type { Event } from '../workloads/generator.ts';
import { defaultParams, type WorkloadParams } from '../workloads/params.ts';
import { benchEnvironment, checksumSink, EventRecord, eventSource } from './job-source.ts';
import { reportStandalone } from './standalone.ts';

interface CepMatch {
  key: number;
  probe: number;
  large: number;
  drain: number;
}

/** The workload's pattern: probe, then a large value, then a drain, within the window. */
export function cepPattern({ probeBelow, largeAtLeast, drainAtLeast, withinMs }: WorkloadParams['cep']) {
  return Pattern.begin<Event, 'probe'>('probe')
    .where((e) => e.value < probeBelow)
    .followedBy('large')
    .where((e) => e.value >= largeAtLeast)
    .followedBy('drain')
    .where((e) => e.value >= drainAtLeast)
    .within(withinMs);
}

/** Equal timestamps in id order: the order of one ordered stream, whichever source subtask an event came from. */
export const byEventId = (a: Event, b: Event): number => a.id - b.id;

export async function cepWeir(params: WorkloadParams): Promise<WorkloadResult> {
  const pattern = cepPattern(params.cep);
  const env = benchEnvironment(params);
  const accumulator = new ChecksumAccumulator();
  const events = env
    .fromSource(
      eventSource(params),
      benchAlignment(
        WatermarkStrategy.forBoundedOutOfOrderness<Event>(params.stream.outOfOrdernessMs),
      ).withTimestampAssigner((e) => e.ts),
      'events',
    )
    .setParallelism(params.parallelism)
    .returns(EventRecord);
  CEP.pattern(
    events.keyBy((e) => e.key),
    pattern,
    byEventId,
  )
    .select((m): CepMatch => ({
      key: m.probe[0]!.key,
      probe: m.probe[0]!.id,
      large: m.large[0]!.id,
      drain: m.drain[0]!.id,
    }))
    .sinkTo(checksumSink(accumulator, (m: CepMatch) => hashCepMatch(m.key, m.probe, m.large, m.drain)));
  const job = await env.execute('cep');
  return accumulator.result(params.events, job.workerStartupMs);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const params = defaultParams(Number(process.argv[2] ?? 1_000_000));
  const keys = Number(process.argv[3] ?? params.stream.keys);
  await reportStandalone('cep', cepWeir, { ...params, stream: { ...params.stream, keys } });
}
