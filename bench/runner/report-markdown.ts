// Renders the benchmark results as the Markdown table pasted into docs/performance.md.

import { WORKLOAD_IDS, WORKLOAD_TITLES } from '../workloads/params.ts';
import type { Measurement } from './measurement.ts';
import type { CheckpointStateResult } from '../weir/checkpoint-job.ts';
import { renderCheckpointCost, renderCheckpointState } from './report-checkpoints.ts';

export interface ReportMeta {
  readonly date: string;
  readonly node: string;
  readonly cpus: number;
  readonly loadAverage: readonly number[];
  readonly nodeEvents: number;
  /** The generic stream's key count (workloads 1, 2, 3, 6, 7). */
  readonly keys: number;
  readonly runs: number;
  readonly warmup: number;
  readonly childProcesses: boolean;
  /** The checkpointed cells' interval (`--checkpoint-every`), when they ran. */
  readonly checkpointEveryMs?: number;
  readonly flink?: {
    readonly version: string;
    readonly events: number;
    readonly buildSeconds: number;
    readonly fetched: boolean;
    readonly java: string;
  };
  readonly flinkSkipped?: string;
}

export interface MicroResult {
  readonly system: string;
  readonly keys: number;
  readonly bytesPerKey?: number;
  readonly note?: string;
}

const fmtRate = (r: number): string => (r >= 1e6 ? `${(r / 1e6).toFixed(2)} M` : `${(r / 1e3).toFixed(0)} k`);
const fmtMb = (b: number | undefined): string =>
  b === undefined || b < 0 ? '–' : `${(b / 2 ** 20).toFixed(0)}`;

// A heap probe sees the state of every subtask in one process only at parallelism 1: with two subtasks the
// heap after a full GC mixes both and their in-flight buffers (Flink p2 gave 0 and negative figures), so no figure.
const fmtStateBytes = (m: Measurement): string =>
  m.stateBytesPerKey === undefined || m.parallelism > 1 ? '–' : m.stateBytesPerKey.toFixed(0);

const fmtEnd = (m: Measurement): string =>
  m.endedAt === undefined
    ? '–'
    : `${m.endedAt.slice(11, 16)}${m.loadAverage === undefined ? '' : `, ${m.loadAverage.toFixed(1)}`}`;

/** Systems at parallelism 2 on two threads (weir-p2, flink-p2, limit-p2), which the report sets beside limit-p2. */
const onTwoThreads = (system: string): boolean => system.endsWith('-p2');

export function renderMarkdown(
  meta: ReportMeta,
  measurements: readonly Measurement[],
  micro: readonly MicroResult[],
  checkpointState: readonly CheckpointStateResult[] = [],
): string {
  const lines: string[] = [];
  const ends = measurements.flatMap((m) => (m.endedAt === undefined ? [] : [m.endedAt])).sort();
  const span =
    ends.length === 0
      ? `Measured ${meta.date}`
      : `Cells ended between ${ends[0]} and ${ends[ends.length - 1]}`;
  lines.push(
    `${span} on Node ${meta.node}, ${meta.cpus} cores, load average at the start of the run ${meta.loadAverage.map((l) => l.toFixed(2)).join(' ')}; ` +
      `"ended, load" gives each cell's end (UTC) and the 1-minute load average then: above ${meta.cpus / 2}, other work ran beside it.`,
  );
  lines.push(
    `Node systems: ${meta.nodeEvents.toLocaleString('en-US')} events, ${meta.keys.toLocaleString('en-US')} keys in the generic stream (workloads 1, 2, 3, 6, 7), ${meta.warmup} warm-up + ${meta.runs} timed runs` +
      `${meta.childProcesses ? ', each (system, workload) in a fresh child process' : ', in-process'}.`,
  );
  if (meta.flink !== undefined) {
    lines.push(
      `Flink ${meta.flink.version} (${meta.flink.java}), MiniCluster, heap state backend: ${meta.flink.events.toLocaleString('en-US')} events, ` +
        `events/s over the job's net runtime; Maven build ${meta.flink.buildSeconds.toFixed(1)} s${meta.flink.fetched ? ' including the first fetch from Maven Central' : ' (offline)'}.`,
    );
  } else if (meta.flinkSkipped !== undefined) {
    lines.push(`Flink: ${meta.flinkSkipped}`);
  }
  lines.push(
    'All outputs were verified equal (count and checksum) to the limit loop before this table was written.',
  );
  lines.push(
    '"× limit-p2": a system on two threads (`-p2`) beside the limit\'s loops on two threads, records crossing by key group.',
  );
  lines.push('');
  lines.push(
    '| workload | system | events/s median | min – max | × limit | × limit-p2 | × Flink p1 | outputs | checksum | RSS peak MB | heap peak MB | state B/key | ended, load |',
  );
  lines.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const workload of WORKLOAD_IDS) {
    const cells = measurements.filter((m) => m.workload === workload);
    const limit = cells.find((m) => m.system === 'limit' && m.status === 'ok')?.eventsPerSecond?.median;
    const limitP2 = cells.find((m) => m.system === 'limit-p2' && m.status === 'ok')?.eventsPerSecond?.median;
    const flink = cells.find((m) => m.system === 'flink-p1' && m.status === 'ok')?.eventsPerSecond?.median;
    for (const m of cells) {
      const title = WORKLOAD_TITLES[workload];
      if (m.status !== 'ok' || m.eventsPerSecond === undefined) {
        lines.push(
          `| ${title} | ${m.system} | ${m.status === 'not-implemented' ? 'not implemented' : m.status} | | | | | | | | | | |`,
        );
        continue;
      }
      const rate = m.eventsPerSecond;
      const first = m.runs[0];
      lines.push(
        `| ${title} | ${m.system} | ${fmtRate(rate.median)} | ${fmtRate(rate.min)} – ${fmtRate(rate.max)} | ` +
          `${limit === undefined ? '–' : (rate.median / limit).toFixed(2)} | ` +
          `${limitP2 === undefined || !onTwoThreads(m.system) ? '–' : (rate.median / limitP2).toFixed(2)} | ` +
          `${flink === undefined ? '–' : (rate.median / flink).toFixed(2)} | ` +
          `${first?.count.toLocaleString('en-US') ?? '–'} | ${first?.checksum ?? '–'} | ${fmtMb(m.rssPeakBytes)} | ${fmtMb(m.heapPeakBytes)} | ` +
          `${fmtStateBytes(m)} | ${fmtEnd(m)} |`,
      );
    }
  }
  const checkpointCost = renderCheckpointCost(measurements, meta.checkpointEveryMs);
  if (checkpointCost.length > 0) lines.push('', ...checkpointCost);
  const stateCheckpoint = renderCheckpointState(checkpointState);
  if (stateCheckpoint.length > 0) lines.push('', ...stateCheckpoint);
  if (micro.length > 0) {
    lines.push('');
    lines.push(
      'ValueState<number> micro-benchmark (heap after full GC, with the state built, minus before):',
    );
    lines.push('');
    lines.push('| system | keys | bytes per key |');
    lines.push('|---|---:|---:|');
    for (const r of micro) {
      lines.push(
        `| ${r.system} | ${r.keys.toLocaleString('en-US')} | ${r.bytesPerKey === undefined ? (r.note ?? 'not implemented') : r.bytesPerKey.toFixed(1)} |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
