// Renders the checkpoint-cost table of the benchmark report: each system's throughput on the durable-state
// workloads without checkpoints and with a checkpoint every interval, measured in the same run, side by side.

import { DURABLE_STATE_WORKLOADS, WORKLOAD_IDS, WORKLOAD_TITLES } from '../workloads/params.ts';
import type { Measurement } from './measurement.ts';
import { spread } from './stats.ts';

/** Each checkpointed system after the system it repeats with checkpoints, and the state it keeps. */
export const CHECKPOINT_PAIRS: readonly {
  readonly without: string;
  readonly with: string;
  readonly state: string;
}[] = [
  { without: 'weir', with: 'weir-checkpointed', state: 'Weir heap' },
  { without: 'weir-lmdb', with: 'weir-lmdb-checkpointed', state: 'Weir LMDB' },
  { without: 'flink-p1', with: 'flink-checkpointed-p1', state: 'Flink heap (HashMapStateBackend)' },
  { without: 'flink-rocksdb-p1', with: 'flink-rocksdb-checkpointed-p1', state: 'Flink embedded RocksDB' },
];

const fmtRate = (r: number): string => (r >= 1e6 ? `${(r / 1e6).toFixed(2)} M` : `${(r / 1e3).toFixed(0)} k`);

const median = (m: Measurement | undefined): number | undefined =>
  m?.status === 'ok' ? m.eventsPerSecond?.median : undefined;

/**
 * The table's lines, or none when no checkpointed cell ran. "× without" is the median with checkpoints over the
 * median without, both from this run; "checkpoints" is the median count completed per timed run.
 */
export function renderCheckpointCost(
  measurements: readonly Measurement[],
  intervalMs: number | undefined,
): string[] {
  const checkpointed = new Set(CHECKPOINT_PAIRS.map((p) => p.with));
  if (!measurements.some((m) => checkpointed.has(m.system))) return [];
  const lines: string[] = [
    `Checkpoint cost: the durable-state workloads without checkpoints and with an aligned exactly-once checkpoint every ${intervalMs === undefined ? '?' : intervalMs.toLocaleString('en-US')} ms ` +
      '(Weir: FileCheckpointStorage; Flink: file-system checkpoint storage), both in this run; checkpoints: median completed per timed run.',
    '',
    '| workload | state | events/s without | with checkpoints | × without | checkpoints per run |',
    '|---|---|---:|---:|---:|---:|',
  ];
  for (const workload of WORKLOAD_IDS) {
    if (!DURABLE_STATE_WORKLOADS.has(workload)) continue;
    for (const pair of CHECKPOINT_PAIRS) {
      const find = (system: string): Measurement | undefined =>
        measurements.find((m) => m.workload === workload && m.system === system);
      const withCheckpoints = find(pair.with);
      if (withCheckpoints === undefined) continue;
      const before = median(find(pair.without));
      const after = median(withCheckpoints);
      const counts = withCheckpoints.runs.flatMap((r) =>
        r.checkpoints === undefined ? [] : [r.checkpoints],
      );
      lines.push(
        `| ${WORKLOAD_TITLES[workload]} | ${pair.state} | ${before === undefined ? '–' : fmtRate(before)} | ` +
          `${after === undefined ? withCheckpoints.status : fmtRate(after)} | ` +
          `${before === undefined || after === undefined ? '–' : (after / before).toFixed(2)} | ` +
          `${counts.length === 0 ? '–' : spread(counts).median} |`,
      );
    }
  }
  return lines;
}
