// Cross-checks every run of every system against the reference result (the limit loop, recomputed in this
// process for each input size used) before any number is reported: a benchmark of a wrong answer is void.

import { limitSystem } from '../limit/index.ts';
import type { WorkloadResult } from '../workloads/checksum.ts';
import { defaultParams, type WorkloadId } from '../workloads/params.ts';
import type { Measurement } from './measurement.ts';

export type Reference = Map<string, WorkloadResult>;

function referenceKey(workload: WorkloadId, events: number): string {
  return `${workload}@${events}`;
}

/** The limit's result for every (workload, size) a measurement used. */
export async function computeReference(
  measurements: readonly Measurement[],
  seed: number,
  keys: number,
  bidKeys?: number,
): Promise<Reference> {
  const reference: Reference = new Map();
  for (const m of measurements) {
    const key = referenceKey(m.workload, m.events);
    if (m.status !== 'ok' || reference.has(key)) continue;
    const fn = limitSystem.workloads[m.workload];
    if (fn === undefined) throw new Error(`the limit has no ${m.workload}: it is the reference and must`);
    reference.set(key, await fn(defaultParams(m.events, seed, 1, keys, bidKeys)));
  }
  return reference;
}

/** Every disagreement, as one line each; empty when all runs match the reference. */
export function findMismatches(measurements: readonly Measurement[], reference: Reference): string[] {
  const problems: string[] = [];
  for (const m of measurements) {
    if (m.status !== 'ok') continue;
    const expected = reference.get(referenceKey(m.workload, m.events));
    if (expected === undefined) {
      problems.push(`${m.system} ${m.workload}: no reference for ${m.events} events`);
      continue;
    }
    if (m.runs.length === 0) problems.push(`${m.system} ${m.workload}: no runs recorded`);
    m.runs.forEach((run, i) => {
      if (run.count !== expected.count || run.checksum !== expected.checksum || run.events !== m.events) {
        problems.push(
          `${m.system} ${m.workload} run ${i}: count ${run.count} checksum ${run.checksum} events ${run.events}` +
            ` — expected count ${expected.count} checksum ${expected.checksum} events ${m.events}`,
        );
      }
    });
  }
  return problems;
}
