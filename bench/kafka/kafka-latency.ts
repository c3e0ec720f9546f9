// The Kafka comparison's latency runs: a probe process writes orders at a fixed rate while the job runs (Weir's or
// Flink's, alternating) and times each output record from its send to when a read_committed consumer holds it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { spread, type Spread } from '../runner/stats.ts';
import type { FlinkKafkaJob } from './flink-kafka-job.ts';
import { expectedTotals, partitionOf } from './kafka-records.ts';
import { createTopic, deleteTopic, readChecksum } from './kafka-topics.ts';
import { runWeirKafkaJob, type KafkaJobSpec } from './weir-kafka-job.ts';

const PROBE = fileURLToPath(new URL('./latency-probe.ts', import.meta.url));

export interface KafkaLatencyOptions {
  readonly servers: string;
  /** Records per run, of which the first `warm` are written before the job's first output and not timed. */
  readonly records: number;
  readonly warm: number;
  /** Records per second the probe writes once the job is up. */
  readonly rate: number;
  readonly partitions: number;
  readonly parallelism: number;
  readonly checkpointMs: number;
  readonly guarantees: readonly KafkaJobSpec['guarantee'][];
  readonly runs: number;
}

/** One run's latency percentiles, in milliseconds. */
export interface LatencyRun {
  readonly timed: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

export interface KafkaLatencyCell {
  readonly system: 'weir' | 'flink';
  readonly guarantee: KafkaJobSpec['guarantee'];
  readonly runs: readonly LatencyRun[];
  /** The spread over the runs of each run's percentile. */
  readonly p50: Spread;
  readonly p99: Spread;
}

interface ProbeLine extends Partial<LatencyRun> {
  readonly type: string;
}

/** Starts the probe; resolves `ready` once its consumer is assigned and the warm records are sent. */
function startProbe(
  options: KafkaLatencyOptions,
  input: string,
  output: string,
): { ready: Promise<void>; result: Promise<LatencyRun> } {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      PROBE,
      options.servers,
      input,
      output,
      String(options.records),
      String(options.rate),
      String(options.partitions),
      String(options.warm),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('"ready"')) onReady();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-10_000)));
  const result = new Promise<LatencyRun>((resolve, reject) => {
    child.on('close', (code) => {
      const line = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as ProbeLine)
        .find((l) => l.type === 'latency');
      if (code !== 0 || line === undefined)
        reject(new Error(`the latency probe failed (${code}): ${stderr}`));
      else resolve(line as LatencyRun);
    });
  });
  // A probe that dies before it is ready must not leave the caller waiting.
  result.catch(() => onReady());
  return { ready, result };
}

export async function runKafkaLatency(
  options: KafkaLatencyOptions,
  flink: FlinkKafkaJob | undefined,
  log: (line: string) => void,
): Promise<KafkaLatencyCell[]> {
  const expected = expectedTotals(options.records);
  const stopOffsets = new Array<number>(options.partitions).fill(0);
  for (let i = 0; i < options.records; i++) stopOffsets[partitionOf(i, options.partitions)]!++;
  const tag = randomBytes(3).toString('hex');
  const cells: KafkaLatencyCell[] = [];
  let n = 0;
  for (const guarantee of options.guarantees) {
    const runs = { weir: [] as LatencyRun[], flink: [] as LatencyRun[] };
    for (let round = 0; round < options.runs; round++) {
      const order: ('weir' | 'flink')[] = round % 2 === 0 ? ['weir', 'flink'] : ['flink', 'weir'];
      for (const system of order) {
        if (system === 'flink' && flink === undefined) continue;
        const input = `bench-latency-in-${tag}-${n}`;
        const output = `bench-latency-out-${system}-${tag}-${n++}`;
        await createTopic(options.servers, input, options.partitions);
        await createTopic(options.servers, output, options.partitions);
        const spec: KafkaJobSpec = {
          servers: options.servers,
          input,
          output,
          guarantee,
          parallelism: options.parallelism,
          checkpointMs: options.checkpointMs,
          stopOffsets,
        };
        const probe = startProbe(options, input, output);
        await probe.ready;
        const job = system === 'weir' ? runWeirKafkaJob(spec) : flink!.run(spec);
        const [latency] = await Promise.all([probe.result, job]);
        const seen = await readChecksum(options.servers, output);
        if (seen.count !== expected.count || seen.checksum !== expected.checksum)
          throw new Error(
            `${system} ${guarantee} latency run: ${output} holds ${seen.count} records (checksum ${seen.checksum}), expected ${expected.count} (checksum ${expected.checksum})`,
          );
        await deleteTopic(options.servers, output);
        await deleteTopic(options.servers, input);
        runs[system].push(latency);
        log(
          `  ${system.padEnd(5)} ${guarantee} latency: p50 ${latency.p50} ms, p90 ${latency.p90} ms, p99 ${latency.p99} ms, max ${latency.max} ms over ${latency.timed} records, output verified`,
        );
      }
    }
    for (const system of ['weir', 'flink'] as const) {
      if (runs[system].length === 0) continue;
      cells.push({
        system,
        guarantee,
        runs: runs[system],
        p50: spread(runs[system].map((r) => r.p50)),
        p99: spread(runs[system].map((r) => r.p99)),
      });
    }
  }
  return cells;
}
