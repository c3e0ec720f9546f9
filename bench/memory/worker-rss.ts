// Memory benchmark: peak RSS of weir (one thread) and weir-p2 (2 worker threads) per workload, each run in a fresh
// process. Worker threads share their process's memory, so what a worker costs is read from the process: its peak
// RSS at p2 less the RSS of the same process with the bench loaded and no job run yet, halved, against the same for
// p1 (one thread). A worker holds its own V8 heap, its own copy of every module the job imports, and its share of
// the job's state.
// Run: node --import tsx bench/memory/worker-rss.ts [rolling-count,tumbling-window,session-window,cep] [events]
//      (events defaults to each workload's count below)
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadSystem } from '../runner/systems.ts';
import { defaultParams, type WorkloadId } from '../workloads/params.ts';

interface Sample {
  /** RSS with the bench loaded, before any job. */
  readonly loadedMb: number;
  /** The process's peak RSS once the job ended. */
  readonly peakMb: number;
  readonly count: number;
}

const EVENTS: Partial<Record<WorkloadId, number>> = {
  'rolling-count': 2_000_000,
  'tumbling-window': 2_000_000,
  'session-window': 200_000,
  cep: 500_000,
};
const mb = (bytes: number): number => Math.round((bytes / 2 ** 20) * 10) / 10;

if (process.argv[2] === '--child') {
  const [workload, system, events] = process.argv.slice(3) as [WorkloadId, string, string];
  const loaded = (await loadSystem(system)).system!;
  const loadedMb = mb(process.memoryUsage().rss);
  const result = await loaded.workloads[workload]!(
    defaultParams(Number(events), 42, system === 'weir' ? 1 : 2),
  );
  const sample: Sample = { loadedMb, peakMb: mb(process.resourceUsage().maxRSS * 1024), count: result.count };
  process.stdout.write(`${JSON.stringify(sample)}\n`);
  process.exit(0);
} else {
  const workloads = (process.argv[2] ?? 'rolling-count,tumbling-window,session-window,cep').split(
    ',',
  ) as WorkloadId[];
  const self = fileURLToPath(import.meta.url);
  console.log(
    'workload          events     p1: loaded / peak MB   p2: loaded / peak MB   per thread at its peak: p1 / each p2 worker',
  );
  for (const workload of workloads) {
    const events = String(process.argv[3] ?? EVENTS[workload] ?? 1_000_000);
    const run = (system: string): Sample =>
      JSON.parse(
        execFileSync(process.execPath, ['--import', 'tsx', self, '--child', workload, system, events], {
          encoding: 'utf8',
        })
          .trim()
          .split('\n')
          .pop()!,
      ) as Sample;
    const p1 = run('weir');
    const p2 = run('weir-p2');
    if (p1.count !== p2.count) throw new Error(`${workload}: p1 emitted ${p1.count}, p2 ${p2.count}`);
    console.log(
      `${workload.padEnd(16)} ${events.padStart(9)}   ${`${p1.loadedMb} / ${p1.peakMb}`.padEnd(21)}  ${`${p2.loadedMb} / ${p2.peakMb}`.padEnd(21)}  ${(p1.peakMb - p1.loadedMb).toFixed(1)} / ${((p2.peakMb - p2.loadedMb) / 2).toFixed(1)}`,
    );
  }
}
