// Renders a Kafka comparison as the Markdown table pasted into docs/performance.md.
import type { KafkaComparison } from './kafka-comparison.ts';

const rate = (r: number): string => `${(r / 1000).toFixed(1)} k`;
const load = (l: readonly number[]): string => l.map((x) => x.toFixed(2)).join(' ');

export function renderKafkaMarkdown(c: KafkaComparison): string {
  const lines = [
    `Measured ${c.started} – ${c.date} on Node ${process.versions.node}; load average ${load(c.loadStart)} at the start, ${load(c.loadEnd)} at the end.`,
    `${c.records.toLocaleString('en-US')} JSON records in ${c.partitions} partitions (filled at ${rate(c.fillPerSecond)} records/s by the raw client), ` +
      `parallelism ${c.parallelism}, checkpoints every ${c.checkpointMs} ms, ${c.warmup} warm-up + ${c.cells[0]?.ms.length ?? 0} timed runs per cell, the systems alternating.`,
    `Every run's output topic, read back with read_committed, held exactly the reference: ${c.verified.count.toLocaleString('en-US')} records, checksum ${c.verified.checksum}.`,
    '',
    '| guarantee | system | records/s median | min – max | × Flink | runs (s) |',
    '|---|---|---:|---:|---:|---|',
  ];
  for (const cell of c.cells) {
    const flink = c.cells.find((x) => x.system === 'flink' && x.guarantee === cell.guarantee);
    const ratio =
      flink === undefined ? '–' : (cell.eventsPerSecond.median / flink.eventsPerSecond.median).toFixed(2);
    const runs = cell.ms.map((ms) => (ms / 1000).toFixed(1)).join(', ');
    const wall =
      cell.wallMs === undefined
        ? ''
        : ` (execute() with MiniCluster start: ${cell.wallMs.map((ms) => (ms / 1000).toFixed(1)).join(', ')})`;
    lines.push(
      `| ${cell.guarantee} | ${cell.system} | ${rate(cell.eventsPerSecond.median)} | ${rate(cell.eventsPerSecond.min)} – ${rate(cell.eventsPerSecond.max)} | ${ratio} | ${runs}${wall} |`,
    );
  }
  lines.push(
    '',
    "Weir: the time of `env.execute()`. Flink: the job's net runtime (task deployment included, MiniCluster start excluded). Both include the final checkpoint that commits the last transaction.",
  );
  if (c.latency !== undefined) {
    const l = c.latency;
    lines.push(
      '',
      `Latency: ${l.records.toLocaleString('en-US')} records per run written by a probe process, the first ${l.warm.toLocaleString('en-US')} at once, the rest at ${l.rate.toLocaleString('en-US')} records/s from the job's first output on; each paced record timed from its send (its Kafka timestamp, carried to the output record by both sinks) to when the probe's read_committed consumer held its output. Milliseconds; median of the runs' percentiles, min – max over the runs.`,
      '',
      '| guarantee | system | p50 | p50 min – max | p99 | p99 min – max | max |',
      '|---|---|---:|---:|---:|---:|---:|',
    );
    for (const cell of l.cells)
      lines.push(
        `| ${cell.guarantee} | ${cell.system} | ${cell.p50.median} | ${cell.p50.min} – ${cell.p50.max} | ${cell.p99.median} | ${cell.p99.min} – ${cell.p99.max} | ${Math.max(...cell.runs.map((r) => r.max))} |`,
      );
  }
  return `${lines.join('\n')}\n`;
}
