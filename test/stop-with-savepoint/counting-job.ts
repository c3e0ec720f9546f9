// The stop-with-savepoint tests' job: counts numbers per residue mod 3 from a generator, reporting each count.
import type { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
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
