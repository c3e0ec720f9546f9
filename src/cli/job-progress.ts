// JobProgress: the live line `weir run` keeps on a terminal while a job runs (records read, rate, status).
import type { JobClient } from '../execution/job-client.ts';

/** Records the job's sources emitted so far, over every subtask of the current attempt on every thread. */
export function sourceRecords(client: JobClient): number {
  const attempt = client.running.attempt;
  if (attempt === undefined) return 0;
  let n = 0;
  for (const node of client.running.graph.nodes) {
    if (node.transformation.kind !== 'source') continue;
    for (const s of attempt.subtaskFigures(node)) n += s.recordsOut;
  }
  return n;
}

/** The bytes the job's file sources read so far and their total, or undefined when it has none. */
export function fileInputRead(client: JobClient): { read: number; total: number } | undefined {
  const attempt = client.running.attempt;
  if (attempt === undefined) return undefined;
  let read = 0;
  let total: number | undefined;
  for (const node of client.running.graph.nodes) {
    for (const s of attempt.subtaskFigures(node)) {
      const bytes = s.metrics.fileBytesTotal;
      if (bytes === undefined) continue;
      total = (total ?? 0) + bytes;
      read += s.metrics.fileBytesRead ?? 0;
    }
  }
  return total === undefined ? undefined : { read, total };
}

/**
 * The progress line's text: status, records read, their rate, and with file sources the share of their bytes
 * read, in percent rounded down to one decimal (100 when the files are empty).
 *
 * @example
 * progressLine('orders', 'RUNNING', 1_204_000, 401_000.4, { read: 425, total: 1000 });
 * // "orders: RUNNING, 1,204,000 records read, 401,000/s, 42.5 % of file input read"
 */
export function progressLine(
  jobName: string,
  status: string,
  records: number,
  ratePerSecond: number,
  files: { read: number; total: number } | undefined,
): string {
  const percent =
    files === undefined
      ? ''
      : `, ${files.total === 0 ? 100 : Math.floor((files.read * 1000) / files.total) / 10} % of file input read`;
  return `${jobName}: ${status}, ${records.toLocaleString('en')} records read, ${Math.round(ratePerSecond).toLocaleString('en')}/s${percent}`;
}

/**
 * Rewrites one status line on a terminal every `intervalMs`: the job's status, records its sources emitted and
 * their rate over the last interval. Writes nothing when `out` is not a terminal (piped output stays clean). Its
 * timer never keeps the process alive.
 */
export class JobProgress {
  private timer: NodeJS.Timeout | undefined = undefined;
  private last = { at: 0, records: 0 };
  private width = 0;

  constructor(
    private readonly client: JobClient,
    private readonly out: { write(text: string): unknown; isTTY?: boolean },
    private readonly intervalMs = 1_000,
  ) {}

  start(): void {
    if (this.out.isTTY !== true) return;
    this.last = { at: Date.now(), records: sourceRecords(this.client) };
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the updates and clears the line. */
  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.out.write(`\r${' '.repeat(this.width)}\r`);
  }

  private tick(): void {
    const now = Date.now();
    const records = sourceRecords(this.client);
    const rate = ((records - this.last.records) * 1000) / Math.max(1, now - this.last.at);
    this.last = { at: now, records };
    const line = progressLine(
      this.client.jobName,
      this.client.getJobStatus(),
      records,
      rate,
      fileInputRead(this.client),
    );
    this.out.write(`\r${line.padEnd(this.width)}`);
    this.width = line.length;
  }
}
