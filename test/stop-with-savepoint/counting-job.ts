// The stop-with-savepoint tests' job: counts numbers per residue mod 3 from a generator, reporting each count.
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { CollectSink } from '../../src/connectors/collect-sink.ts';
import { loadSavepoint } from '../../src/execution/checkpoint-storage.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import type { Sink } from '../../src/core/sink.ts';

export interface Count {
  readonly residue: number;
  readonly count: number;
}

/** `count` numbers (Infinity: unbounded), keyed by n % 3 and counted; every running count goes to `sink`. */
export function buildCountingJob(env: StreamExecutionEnvironment, count: number, sink: Sink<Count>): void {
  env
    .fromSource(
      GeneratorSource.of(count, (n) => n, { batchSize: 100 }),
      undefined,
      'numbers',
    )
    .uid('numbers')
    .map((n) => ({ residue: n % 3, count: 1 }))
    .keyBy((c) => c.residue)
    .reduce((a, b) => ({ residue: a.residue, count: a.count + b.count }))
    .uid('counts')
    .sinkTo(sink, 'counts');
}

/** The final count per residue a run over numbers 0 … n-1 reports. */
export function expectedCounts(n: number): Count[] {
  return [0, 1, 2].map((residue) => ({ residue, count: Math.floor((n - residue + 2) / 3) }));
}

/** The last count reported per residue, by residue. */
export function lastCounts(counts: readonly Count[]): Count[] {
  const last = new Map<number, Count>();
  for (const c of counts) last.set(c.residue, c);
  return [...last.values()].sort((a, b) => a.residue - b.residue);
}

/** The generator's next index in a savepoint (its one split's): how many numbers the job had read. */
export function readPosition(path: string): number {
  return (loadSavepoint(path).operators['numbers']!.operatorState[0] as { next: number }[])[0]!.next;
}

/** Restores the counting job from `path` over `total` numbers and returns its final counts. */
export async function resume(path: string, total: number): Promise<Count[]> {
  const env = StreamExecutionEnvironment.create();
  const sink = new CollectSink<Count>();
  buildCountingJob(env, total, sink);
  await env.execute('resumed', { savepointPath: path });
  return lastCounts(sink.values);
}
