// Weir's workload 2 (keyed rolling count in ValueState, one output per event): key extraction, the hash exchange,
// the key context and a ValueState read and write per record.
// Run: npm run bench -- --system limit,weir --workload rolling-count (or alone: node --import tsx bench/weir/rolling-count.ts)
import type { Collector, KeyedProcessContext, KeyedProcessFunction } from '../../src/core/functions.ts';
import type { RuntimeContext } from '../../src/core/runtime-context.ts';
import { ValueStateDescriptor } from '../../src/core/state-descriptor.ts';
import type { ValueState } from '../../src/core/state.ts';
import { ChecksumAccumulator, hashRollingCount, type WorkloadResult } from '../workloads/checksum.ts';
import type { Event } from '../workloads/generator.ts';
import { defaultParams, type WorkloadParams } from '../workloads/params.ts';
import { benchEnvironment, checksumSink, EventRecord, eventSource } from './job-source.ts';
import { reportStandalone } from './standalone.ts';

interface KeyCount {
  key: number;
  count: number;
}

/** The count per key in ValueState; `output` shapes what each event emits (the latency job adds the event's id). */
export class RollingCount<O> implements KeyedProcessFunction<number, Event, O> {
  private count!: ValueState<number>;
  constructor(private readonly output: (e: Event, count: number) => O) {}
  open(ctx: RuntimeContext): void {
    this.count = ctx.getState(new ValueStateDescriptor<number>('count', { defaultValue: 0 }));
  }
  processElement(e: Event, _ctx: KeyedProcessContext<number>, out: Collector<O>): void {
    const count = this.count.value()! + 1;
    this.count.update(count);
    out.collect(this.output(e, count));
  }
}

export async function rollingCountWeir(params: WorkloadParams): Promise<WorkloadResult> {
  const env = benchEnvironment(params);
  const accumulator = new ChecksumAccumulator();
  env
    .fromSource(eventSource(params), undefined, 'events')
    .setParallelism(params.parallelism)
    .returns(EventRecord)
    .keyBy((e) => e.key)
    .process(new RollingCount((e, count): KeyCount => ({ key: e.key, count })))
    .sinkTo(checksumSink(accumulator, (r: KeyCount) => hashRollingCount(r.key, r.count)));
  const job = await env.execute('rolling-count');
  return accumulator.result(params.events, job.workerStartupMs);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await reportStandalone(
    'rolling-count',
    rollingCountWeir,
    defaultParams(Number(process.argv[2] ?? 4_000_000)),
  );
}
