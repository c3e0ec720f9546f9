// The Kafka comparison: one input topic filled once, then Weir's and Flink's Kafka -> keyed running total -> Kafka
// job run in alternation on the same broker, each run into its own output topic, every output read back with
// read_committed and checked against the reference before any time is reported.
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { spread, type Spread } from '../runner/stats.ts';
import { FlinkKafkaJob } from './flink-kafka-job.ts';
import { runKafkaLatency, type KafkaLatencyCell } from './kafka-latency.ts';
import { expectedTotals } from './kafka-records.ts';
import { createTopic, deleteTopic, fillOrders, readChecksum } from './kafka-topics.ts';
import { runWeirKafkaJob, type KafkaJobSpec } from './weir-kafka-job.ts';

export type KafkaGuarantee = KafkaJobSpec['guarantee'];

export interface KafkaComparisonOptions {
  readonly servers: string;
  readonly records: number;
  readonly partitions: number;
  readonly parallelism: number;
  readonly checkpointMs: number;
  readonly guarantees: readonly KafkaGuarantee[];
  readonly warmup: number;
  readonly runs: number;
  /** Run Flink's side too (bench/flink must be built). */
  readonly flink: boolean;
  /** The latency runs (after the throughput runs, `runs` of them per cell), or undefined to skip them. */
  readonly latency: { readonly records: number; readonly warm: number; readonly rate: number } | undefined;
}

/** One system at one delivery guarantee: its timed runs, all verified. */
export interface KafkaCell {
  readonly system: 'weir' | 'flink';
  readonly guarantee: KafkaGuarantee;
  /** Milliseconds per timed run: Weir's execute(), Flink's net job runtime. */
  readonly ms: readonly number[];
  /** Flink only: the whole execute() call per timed run, including starting its MiniCluster. */
  readonly wallMs?: readonly number[];
  readonly eventsPerSecond: Spread;
}

export interface KafkaComparison {
  /** When the comparison started and ended (ISO 8601, UTC). */
  readonly started: string;
  readonly date: string;
  readonly records: number;
  readonly partitions: number;
  readonly parallelism: number;
  readonly checkpointMs: number;
  readonly warmup: number;
  /** Records per second the raw client filled the input topic at. */
  readonly fillPerSecond: number;
  /** The 1-, 5- and 15-minute load averages at the start and at the end. */
  readonly loadStart: readonly number[];
  readonly loadEnd: readonly number[];
  /** The output every run wrote, as read back with read_committed: equal to the reference. */
  readonly verified: { readonly count: number; readonly checksum: number };
  readonly cells: readonly KafkaCell[];
  readonly latency?: {
    readonly records: number;
    readonly warm: number;
    readonly rate: number;
    readonly cells: readonly KafkaLatencyCell[];
  };
}

export async function runKafkaComparison(
  options: KafkaComparisonOptions,
  log: (line: string) => void,
): Promise<KafkaComparison> {
  const started = new Date().toISOString();
  const loadStart = loadavg();
  const tag = randomBytes(3).toString('hex');
  const input = `bench-orders-${tag}`;
  await createTopic(options.servers, input, options.partitions);
  const fillStart = performance.now();
  await fillOrders(options.servers, input, options.records, options.partitions);
  const fillPerSecond = options.records / ((performance.now() - fillStart) / 1000);
  log(
    `kafka: filled ${input} with ${options.records.toLocaleString('en-US')} records in ${options.partitions} partitions at ${Math.round(fillPerSecond / 1000)}k records/s`,
  );
  const expected = expectedTotals(options.records);
  const flink = options.flink ? await FlinkKafkaJob.start(options.servers) : undefined;
  const cells: KafkaCell[] = [];
  let latencyCells: KafkaLatencyCell[] | undefined;
  try {
    let n = 0;
    for (const guarantee of options.guarantees) {
      const weir = { ms: [] as number[] };
      const java = { ms: [] as number[], wallMs: [] as number[] };
      for (let round = 0; round < options.warmup + options.runs; round++) {
        const warm = round < options.warmup;
        // Alternate which system goes first, so a drift in the machine's load falls on both alike.
        const order: ('weir' | 'flink')[] = round % 2 === 0 ? ['weir', 'flink'] : ['flink', 'weir'];
        for (const system of order) {
          if (system === 'flink' && flink === undefined) continue;
          const output = `bench-totals-${system}-${tag}-${n++}`;
          await createTopic(options.servers, output, options.partitions);
          const spec: KafkaJobSpec = {
            servers: options.servers,
            input,
            output,
            guarantee,
            parallelism: options.parallelism,
            checkpointMs: options.checkpointMs,
          };
          let ms: number;
          if (system === 'weir') ms = await runWeirKafkaJob(spec);
          else {
            const run = await flink!.run(spec);
            ms = run.netMs;
            if (!warm) java.wallMs.push(run.wallMs);
          }
          const seen = await readChecksum(options.servers, output);
          if (seen.count !== expected.count || seen.checksum !== expected.checksum)
            throw new Error(
              `${system} ${guarantee}: ${output} holds ${seen.count} records (checksum ${seen.checksum}), expected ${expected.count} (checksum ${expected.checksum})`,
            );
          await deleteTopic(options.servers, output);
          if (!warm) (system === 'weir' ? weir : java).ms.push(ms);
          log(
            `  ${system.padEnd(5)} ${guarantee}${warm ? ' (warm-up)' : ''}: ${Math.round(options.records / (ms / 1000)).toLocaleString('en-US')} records/s, ${Math.round(ms)} ms, output verified`,
          );
        }
      }
      const rates = (ms: readonly number[]) => spread(ms.map((m) => options.records / (m / 1000)));
      cells.push({ system: 'weir', guarantee, ms: weir.ms, eventsPerSecond: rates(weir.ms) });
      if (flink !== undefined)
        cells.push({
          system: 'flink',
          guarantee,
          ms: java.ms,
          wallMs: java.wallMs,
          eventsPerSecond: rates(java.ms),
        });
    }
    if (options.latency !== undefined) {
      log(
        `kafka: latency, ${options.latency.records.toLocaleString('en-US')} records per run at ${options.latency.rate} records/s`,
      );
      latencyCells = await runKafkaLatency({ ...options, ...options.latency }, flink, log);
    }
  } finally {
    await flink?.close();
    await deleteTopic(options.servers, input).catch(() => {});
  }
  return {
    started,
    date: new Date().toISOString(),
    records: options.records,
    partitions: options.partitions,
    parallelism: options.parallelism,
    checkpointMs: options.checkpointMs,
    warmup: options.warmup,
    fillPerSecond,
    loadStart,
    loadEnd: loadavg(),
    verified: expected,
    cells,
    ...(options.latency === undefined || latencyCells === undefined
      ? {}
      : { latency: { ...options.latency, cells: latencyCells } }),
  };
}
