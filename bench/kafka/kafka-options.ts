// The Kafka comparison's command-line options, shared by bench/kafka/main.ts and bench/run.ts (--kafka-* there).
import { fileURLToPath } from 'node:url';
import type { KafkaGuarantee } from './kafka-comparison.ts';

export interface KafkaCliOptions {
  readonly records: number;
  readonly partitions: number;
  readonly parallelism: number;
  readonly checkpointMs: number;
  readonly guarantees: readonly KafkaGuarantee[];
  readonly warmup: number;
  readonly runs: number;
  readonly flink: boolean;
  readonly latency: { readonly records: number; readonly warm: number; readonly rate: number } | undefined;
  readonly out: string;
}

const GUARANTEES: readonly KafkaGuarantee[] = ['exactly-once', 'at-least-once'];

/** Parses `--<prefix>records N` and the like; `prefix` is '' for bench/kafka/main.ts, 'kafka-' for bench/run.ts. */
export function parseKafkaOptions(argv: readonly string[], prefix = ''): KafkaCliOptions {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${prefix}${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const num = (name: string, fallback: number): number => {
    const raw = value(name);
    const parsed = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(parsed) || parsed < 0)
      throw new Error(`--${prefix}${name} needs a whole number, got ${raw}`);
    return parsed;
  };
  const guarantees = (value('guarantee')?.split(',') ?? GUARANTEES) as KafkaGuarantee[];
  for (const g of guarantees)
    if (!GUARANTEES.includes(g))
      throw new Error(`--${prefix}guarantee: unknown ${g}; known: ${GUARANTEES.join(', ')}`);
  const records = num('records', 200_000);
  const partitions = num('partitions', 4);
  if (records < 1 || partitions < 1) throw new Error('the Kafka comparison needs records and partitions');
  if (num('latency-records', 20_000) <= 1_000)
    throw new Error(
      `--${prefix}latency-records must be above the 1,000 records written before timing starts`,
    );
  return {
    records,
    partitions,
    parallelism: num('parallelism', 1),
    checkpointMs: num('checkpoint-ms', 1_000),
    guarantees,
    warmup: num('warmup', 1),
    runs: num('runs', 3),
    flink: !argv.includes(`--${prefix}no-flink`),
    latency: argv.includes(`--${prefix}no-latency`)
      ? undefined
      : {
          records: num('latency-records', 20_000),
          // Written at once, before the job's first output: start-up is not latency.
          warm: 1_000,
          rate: num('latency-rate', 1_000),
        },
    out: value('out') ?? fileURLToPath(new URL('../results/', import.meta.url)),
  };
}
