// Weir's workload 1 (stateless map → filter → discarding sink): the runtime's per-record cost with no state:
// source → map → filter → sink, chained by forward edges. Run: npm run bench -- --system limit,weir --workload stateless
//      (or alone: node --import tsx bench/weir/stateless.ts [events])
import { ChecksumAccumulator, hashStateless, type WorkloadResult } from '../workloads/checksum.ts';
import { defaultParams, type WorkloadParams } from '../workloads/params.ts';
import { benchEnvironment, checksumSink, EventRecord, eventSource } from './job-source.ts';
import { reportStandalone } from './standalone.ts';

interface Mapped {
  key: number;
  value: number;
}

export async function statelessWeir(params: WorkloadParams): Promise<WorkloadResult> {
  const { multiplier, offset, dropModulus } = params.stateless;
  const env = benchEnvironment(params);
  const accumulator = new ChecksumAccumulator();
  env
    .fromSource(eventSource(params), undefined, 'events')
    .setParallelism(params.parallelism)
    .returns(EventRecord)
    .map((e): Mapped => ({ key: e.key, value: e.value * multiplier + offset }))
    .filter((m) => m.value % dropModulus !== 0)
    .sinkTo(checksumSink(accumulator, (m: Mapped) => hashStateless(m.key, m.value)));
  const job = await env.execute('stateless');
  return accumulator.result(params.events, job.workerStartupMs);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await reportStandalone('stateless', statelessWeir, defaultParams(Number(process.argv[2] ?? 4_000_000)));
}
