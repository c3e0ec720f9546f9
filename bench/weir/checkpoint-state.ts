// Checkpoint benchmark: snapshot/write/restore time and size for a configurable amount of keyed state per backend,
// incremental checkpoint size after a small change, and the throughput cost of checkpointing every second.
// Run: node --import tsx bench/weir/checkpoint-state.ts [--mb 1024] [--backend heap,lmdb] [--events 2000000]
// (defaults are a smoke size: 32 MB of state, 500k events).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { FileCheckpointStorage, loadSnapshotDirectory } from '../../src/execution/checkpoint-storage.ts';
import { StateBackends, type StateBackend } from '../../src/state/state-backend.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import { HeapKeyedStateBackend } from '../../src/state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../../src/state/key-group-range.ts';
import type { KeyedStateBackend } from '../../src/state/keyed-state-backend.ts';
import { LmdbKeyedStateBackend } from '../../src/state/lmdb/lmdb-keyed-state-backend.ts';
import { LmdbStateBackend } from '../../src/state/lmdb/lmdb-state-backend.ts';
import { voidNamespaceSerializer } from '../../src/state/namespace.ts';
import { ValueStateDescriptor } from '../../src/core/state-descriptor.ts';
import type { ValueState } from '../../src/core/state.ts';
import type { RuntimeContext } from '../../src/core/runtime-context.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const MB = Number(arg('mb', '32'));
const BACKENDS = arg('backend', 'heap,lmdb').split(',');
const EVENTS = Number(arg('events', '500000'));
const VALUE_BYTES = 200;
const MAXP = 128;
const root = mkdtempSync(join(tmpdir(), 'weir-bench-checkpoint-'));
const ms = (start: number) => `${(performance.now() - start).toFixed(0)} ms`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

function createBackend(kind: string, name: string): KeyedStateBackend {
  const range = new KeyGroupRange(0, MAXP - 1);
  return kind === 'heap'
    ? new HeapKeyedStateBackend(MAXP, range, () => 0)
    : new LmdbKeyedStateBackend({
        path: join(root, name),
        maxParallelism: MAXP,
        keyGroupRange: range,
        clock: () => 0,
      });
}

async function stateBenchmark(kind: string): Promise<void> {
  const keys = Math.floor((MB * 1e6) / (VALUE_BYTES + 40));
  const backend = createBackend(kind, 'fill');
  const state = backend.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
  const payload = 'x'.repeat(VALUE_BYTES);
  let start = performance.now();
  for (let k = 0; k < keys; k++) {
    backend.setCurrentKey(k);
    state.update(payload);
  }
  console.log(`${kind}: filled ${keys.toLocaleString()} keys (~${MB} MB of values) in ${ms(start)}`);

  start = performance.now();
  const full =
    kind === 'lmdb' ? (backend as LmdbKeyedStateBackend).snapshotIncremental(1) : backend.snapshot();
  const bytes = full.reduce((n, g) => n + (g.bytes?.byteLength ?? 0), 0);
  console.log(`${kind}: snapshot (synchronous part) ${ms(start)}, ${mb(bytes)} in ${full.length} key groups`);

  const storage = new FileCheckpointStorage(join(root, `chk-${kind}`));
  const data = storage.dataFileFor(1);
  for (const g of full) data.add(g.keyGroup, g.bytes!);
  start = performance.now();
  const written = await storage.writeCheckpoint(
    { checkpointId: 1, kind: 'checkpoint', timestamp: Date.now(), jobName: 'bench', operators: {} },
    data,
    {},
  );
  console.log(`${kind}: durable write (fsync) ${ms(start)}`);

  if (kind === 'lmdb') {
    const lmdb = backend as LmdbKeyedStateBackend;
    lmdb.notifyCheckpointComplete(1);
    for (let k = 0; k < keys; k += 1000) {
      lmdb.setCurrentKey(k);
      state.update('changed');
    }
    start = performance.now();
    const inc = lmdb.snapshotIncremental(2);
    const incBytes = inc.reduce((n, g) => n + (g.bytes?.byteLength ?? 0), 0);
    const changed = inc.filter((g) => g.bytes !== undefined).length;
    console.log(
      `${kind}: incremental snapshot after changing 0.1% of keys: ${ms(start)}, ${mb(incBytes)} (${changed}/${inc.length} key groups rewritten)`,
    );
    lmdb.notifyCheckpointComplete(2);
    lmdb.setCurrentKey(1);
    state.update('changed');
    start = performance.now();
    const one = lmdb.snapshotIncremental(3);
    console.log(
      `${kind}: incremental snapshot after changing 1 key (after checkpoint 2 completed): ${ms(start)}, ${mb(one.reduce((n, g) => n + (g.bytes?.byteLength ?? 0), 0))}`,
    );
  }

  start = performance.now();
  const loaded = loadSnapshotDirectory(written.path);
  void loaded;
  const restored = createBackend(kind, 'restore');
  restored.restore(full as { keyGroup: number; bytes: Uint8Array }[]);
  restored.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
  console.log(
    `${kind}: restore (verify checksums + load into the backend) ${ms(start)}, ${restored.numStateEntries().toLocaleString()} entries`,
  );
  if (kind === 'lmdb') {
    // Savepoints: a full snapshot in the key-group format every backend reads (the heap backend's).
    start = performance.now();
    const savepoint = backend.snapshot();
    const spBytes = savepoint.reduce((n, g) => n + g.bytes.byteLength, 0);
    console.log(`${kind}: savepoint snapshot (heap format) ${ms(start)}, ${mb(spBytes)}`);
    for (const into of ['lmdb', 'heap']) {
      start = performance.now();
      const target = createBackend(into, `savepoint-${into}`);
      target.restore(savepoint);
      target.getOrCreateKeyedState(new ValueStateDescriptor<string>('v'), voidNamespaceSerializer);
      console.log(
        `${kind}: savepoint restore into ${into} ${ms(start)}, ${target.numStateEntries().toLocaleString()} entries`,
      );
      target.dispose();
    }
  }
  backend.dispose();
  restored.dispose();
}

async function throughput(kind: string, checkpointing: boolean): Promise<number> {
  const env = StreamExecutionEnvironment.create({ parallelism: 1, autoWatermarkInterval: 0 });
  const backend: StateBackend =
    kind === 'heap' ? StateBackends.heap() : new LmdbStateBackend({ path: join(root, `tp-${kind}`) });
  env.setStateBackend(backend);
  if (checkpointing) env.enableCheckpointing(1_000, { storage: join(root, `tp-chk-${kind}-${Date.now()}`) });
  let out = 0;
  env
    .fromSource(
      GeneratorSource.of(EVENTS, (i) => i),
      undefined,
      'numbers',
    )
    .keyBy((i) => i % 100_000)
    .process<number>({
      count: undefined as ValueState<number> | undefined,
      open(ctx: RuntimeContext) {
        this.count = ctx.getState(new ValueStateDescriptor<number>('count', { defaultValue: 0 }));
      },
      processElement() {
        this.count!.update(this.count!.value()! + 1);
      },
    })
    .sinkTo({ createWriter: () => ({ write: () => void out++ }) });
  const start = performance.now();
  await env.execute('throughput');
  return EVENTS / ((performance.now() - start) / 1000);
}

for (const kind of BACKENDS) await stateBenchmark(kind);
for (const kind of BACKENDS) {
  const without = await throughput(kind, false);
  const withCp = await throughput(kind, true);
  console.log(
    `${kind}: keyed count over 100k keys, ${EVENTS.toLocaleString()} events: ${(without / 1e6).toFixed(2)}M ev/s without checkpoints, ${(withCp / 1e6).toFixed(2)}M ev/s checkpointing every 1 s (${((1 - withCp / without) * 100).toFixed(0)}% cost)`,
  );
}
rmSync(root, { recursive: true, force: true });
