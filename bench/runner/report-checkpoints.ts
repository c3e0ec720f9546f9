// Renders the checkpoint tables of the benchmark report: each system's throughput on the durable-state workloads
// without checkpoints and with a checkpoint every interval, measured in the same run, side by side; and the duration
// and size of one checkpoint of a large keyed state in each system.

import type { CheckpointStateResult } from '../weir/checkpoint-job.ts';
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

const STATE_NAMES: Readonly<Record<string, string>> = {
  weir: 'Weir heap',
  'weir-lmdb': 'Weir LMDB',
  'flink-p1': 'Flink heap (HashMapStateBackend)',
  'flink-rocksdb-p1': 'Flink embedded RocksDB',
};

const fmtMs = (ms: number): string => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`);
const fmtMb = (bytes: number): string => (bytes / 1e6).toFixed(1);

/**
 * The checkpoint-state table: per size and system, the checkpoint's duration (median and min–max of the runs), the
 * bytes it wrote and the bytes in the checkpoint directory (from the first run), and how long building the state took.
 */
export function renderCheckpointState(results: readonly CheckpointStateResult[]): string[] {
  if (results.length === 0) return [];
  const lines: string[] = [
    'Checkpoint of a large keyed state: one ValueState of 200 letters per key, built by a job and checkpointed once ' +
      "(Weir: the bounded job's final checkpoint; Flink: a full checkpoint triggered in the running job), " +
      'duration from trigger to durable, size as each system reports it and as the checkpoint directory holds it.',
    '',
    '| MB of values | keys | state | checkpoint median | min – max | runs | written MB | directory MB | sync / async | state built in |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const sizes = [...new Set(results.map((r) => r.mb))].sort((a, b) => a - b);
  for (const mb of sizes) {
    for (const system of Object.keys(STATE_NAMES)) {
      const runs = results.filter((r) => r.mb === mb && r.system === system);
      const first = runs[0];
      if (first === undefined) continue;
      const duration = spread(runs.map((r) => r.durationMs));
      lines.push(
        `| ${mb.toLocaleString('en-US')} | ${first.keys.toLocaleString('en-US')} | ${STATE_NAMES[system]} | ${fmtMs(duration.median)} | ` +
          `${fmtMs(duration.min)} – ${fmtMs(duration.max)} | ${runs.length} | ${fmtMb(first.checkpointedBytes)} | ` +
          `${fmtMb(first.directoryBytes)} | ${first.syncMs === undefined ? '–' : `${fmtMs(first.syncMs)} / ${fmtMs(first.asyncMs ?? NaN)}`} | ` +
          `${fmtMs(spread(runs.map((r) => r.buildMs)).median)} |`,
      );
    }
  }
  return lines;
}
