// Weir's side of the checkpoint-state benchmark: a job builds N MB of keyed state (one ValueState<string> of 200
// letters per key) on the heap or LMDB backend, and the bounded job's final checkpoint (taken once the source has
// ended, every key's state in it) is timed from its listener: duration from trigger to durable, bytes written, and
// the bytes in the checkpoint directory. CheckpointStateMain.java is Flink's side; bench/runner/checkpoint-state.ts
// runs both. Run alone: node --import tsx bench/weir/checkpoint-job.ts --mb 64 --backend heap,lmdb --runs 3
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import type { Collector, KeyedProcessContext, KeyedProcessFunction } from '../../src/core/functions.ts';
import type { RuntimeContext } from '../../src/core/runtime-context.ts';
import { ValueStateDescriptor } from '../../src/core/state-descriptor.ts';
import type { ValueState } from '../../src/core/state.ts';
import type { CheckpointEvent } from '../../src/execution/checkpoint-config.ts';
import { LmdbStateBackend } from '../../src/state/lmdb/lmdb-state-backend.ts';

/** Characters of each key's value, and the per-entry overhead the key count is sized with (as checkpoint-state.ts). */
export const VALUE_BYTES = 200;
const ENTRY_OVERHEAD = 40;

/** The key count for `mb` megabytes of values; CheckpointStateMain.keysFor computes the same. */
export function keysFor(mb: number): number {
  return Math.floor((mb * 1e6) / (VALUE_BYTES + ENTRY_OVERHEAD));
}

/**
 * Key `key`'s value: 200 letters drawn by a linear congruential generator seeded with the key (as Flink's side), so
 * values differ and do not compress (RocksDB compresses its files; a repeated filler would flatter it).
 */
export function stateValue(key: number): string {
  let x = (Math.imul(key, 0x9e3779b1) + 1) | 0;
  for (let i = 0; i < VALUE_BYTES; i++) {
    x = (Math.imul(x, 1103515245) + 12345) | 0;
    CODES[i] = 97 + ((x >>> 16) % 26);
  }
  return String.fromCharCode(...CODES);
}
const CODES: number[] = new Array<number>(VALUE_BYTES).fill(0);

/** One run of one system and size: what the report's checkpoint-state table shows. */
export interface CheckpointStateResult {
  readonly system: string;
  readonly run: number;
  readonly mb: number;
  readonly keys: number;
  readonly valueBytes: number;
  /** From the job's start to the trigger of the checkpoint (every key written). */
  readonly buildMs: number;
  /** The checkpoint, from trigger to durable (Flink: its end-to-end duration). */
  readonly durationMs: number;
  /** Bytes the checkpoint wrote (Flink: its checkpointed size). */
  readonly checkpointedBytes: number;
  /** Bytes of the files in the checkpoint directory once it completed. */
  readonly directoryBytes: number;
  /** Flink only: the slowest subtask's synchronous and asynchronous parts. */
  readonly syncMs?: number;
  readonly asyncMs?: number;
}

class Store implements KeyedProcessFunction<number, number, never> {
  private state!: ValueState<string>;
  open(ctx: RuntimeContext): void {
    this.state = ctx.getState(new ValueStateDescriptor<string>('value'));
  }
  processElement(key: number, _ctx: KeyedProcessContext<number>, _out: Collector<never>): void {
    this.state.update(stateValue(key));
  }
}

function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? directoryBytes(path) : statSync(path).size;
  }
  return total;
}

/** Builds `mb` MB of keyed state on `backend` and measures the bounded job's final checkpoint of it. */
export async function checkpointStateWeir(
  backend: 'heap' | 'lmdb',
  mb: number,
  run: number,
): Promise<CheckpointStateResult> {
  const keys = keysFor(mb);
  const root = mkdtempSync(join(tmpdir(), 'weir-bench-checkpoint-state-'));
  try {
    const env = StreamExecutionEnvironment.create({ parallelism: 1, autoWatermarkInterval: 0 });
    if (backend === 'lmdb') env.setStateBackend(new LmdbStateBackend({ path: join(root, 'lmdb') }));
    const storage = join(root, 'checkpoints');
    const events: CheckpointEvent[] = [];
    let triggeredAt = NaN;
    // Periodic checkpoints never fall due: the one measured is the final checkpoint, once every key is written.
    env.enableCheckpointing(3_600_000, {
      storage,
      listener: (event) => {
        if (event.type === 'triggered') triggeredAt = performance.now();
        events.push(event);
      },
    });
    env
      .fromSource(
        GeneratorSource.of(keys, (i) => i, { batchSize: 1000 }),
        undefined,
        'keys',
      )
      .keyBy((key) => key)
      .process(new Store())
      .sinkTo({ createWriter: () => ({ write: () => undefined }) });
    const start = performance.now();
    await env.execute('checkpoint-state');
    const completed = events.find((e) => e.type === 'completed');
    if (completed?.type !== 'completed')
      throw new Error(`no checkpoint completed: ${JSON.stringify(events)}`);
    return {
      system: backend === 'lmdb' ? 'weir-lmdb' : 'weir',
      run,
      mb,
      keys,
      valueBytes: VALUE_BYTES,
      buildMs: triggeredAt - start,
      durationMs: completed.durationMs,
      checkpointedBytes: completed.bytesWritten,
      directoryBytes: directoryBytes(storage),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string, fallback: string): string => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
  };
  const runs = Number(arg('runs', '3'));
  for (const mb of arg('mb', '64').split(',').map(Number)) {
    for (const backend of arg('backend', 'heap,lmdb').split(',')) {
      if (backend !== 'heap' && backend !== 'lmdb') throw new Error(`unknown backend ${backend}`);
      for (let run = 0; run < runs; run++) {
        // One JSON line per run, read by bench/runner/checkpoint-state.ts.
        process.stdout.write(`${JSON.stringify(await checkpointStateWeir(backend, mb, run))}\n`);
      }
    }
  }
}
