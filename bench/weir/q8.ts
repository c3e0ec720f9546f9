// Weir's workload q8 (Nexmark q8 "new users who opened auctions"): Nexmark events → persons (filter) and auctions
// (filter) → persons.join(auctions).where(person id).equalTo(seller).window(TumblingEventTimeWindows.of(10 s))
// .apply((person, auction) → (person id, name, window start)) → sink: one record per person and auction of theirs
// in the same window.
// Run: npm run bench -- --system limit,weir --workload q8
//      (or alone: node --import tsx bench/weir/q8.ts [events])

import { Types } from '../../src/core/record-type.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import { TumblingEventTimeWindows } from '../../src/windowing/assigners/tumbling-event-time-windows.ts';
import { ChecksumAccumulator, hashNewPerson, type WorkloadResult } from '../workloads/checksum.ts';
import { AUCTION, type NexmarkEvent, PERSON } from '../workloads/generator.ts';
import { defaultParams, windowStart, type WorkloadParams } from '../workloads/params.ts';
import { benchEnvironment, checksumSink, NexmarkEventRecord, nexmarkSource } from './job-source.ts';
import { reportStandalone } from './standalone.ts';

interface NewPerson {
  id: number;
  name: string;
  windowStart: number;
}

const NewPersonRecord = Types.record({ id: 'number', name: 'string', windowStart: 'number' });

export async function q8Weir(params: WorkloadParams): Promise<WorkloadResult> {
  const env = benchEnvironment(params);
  const accumulator = new ChecksumAccumulator();
  const size = params.nexmarkWindow.sizeMs;
  const events = env
    .fromSource(
      nexmarkSource(params),
      WatermarkStrategy.forBoundedOutOfOrderness<NexmarkEvent>(
        params.nexmark.outOfOrdernessMs,
      ).withTimestampAssigner((e) => e.ts),
      'nexmark',
    )
    .setParallelism(params.parallelism)
    .returns(NexmarkEventRecord);
  const persons = events.filter((e) => e.kind === PERSON).returns(NexmarkEventRecord);
  const auctions = events.filter((e) => e.kind === AUCTION).returns(NexmarkEventRecord);
  persons
    .join(auctions)
    .where((p) => p.id)
    .equalTo((a) => a.seller)
    .window(TumblingEventTimeWindows.of(size))
    .apply((p, _a): NewPerson => ({ id: p.id, name: p.name, windowStart: windowStart(p.ts, size) }))
    .returns(NewPersonRecord)
    .sinkTo(checksumSink(accumulator, (r: NewPerson) => hashNewPerson(r.id, r.name, r.windowStart)));
  const job = await env.execute('q8');
  return accumulator.result(params.events, job.workerStartupMs);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await reportStandalone('q8', q8Weir, defaultParams(Number(process.argv[2] ?? 1_000_000)));
}
