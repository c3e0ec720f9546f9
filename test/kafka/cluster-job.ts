// The job of the cluster-mode tests: a Kafka topic → map → keyBy → a running count and a window → KafkaSink (exactly once), in one process or many.
import { pathToFileURL } from 'node:url';
import { StreamExecutionEnvironment, TumblingEventTimeWindows, WatermarkStrategy } from '../../src/index.ts';
import { Deserializers, KafkaSource, OffsetsInitializer } from '../../src/connectors/kafka/index.ts';
import { LmdbStateBackend } from '../../src/state/lmdb/index.ts';
import type { LocalStores, StateBackend } from '../../src/state/state-backend.ts';
import { RunningCount, lineSink, windowSum } from './keyed-test-functions.ts';

/** One input record: its key picks the input partition, so each key's records are in order in one partition. */
export interface ClusterTestEvent {
  readonly id: number;
  readonly key: string;
}

/** What varies between the single-process reference run and a process of the cluster. */
export interface ClusterTestJob {
  readonly bootstrapServers: string;
  readonly input: string;
  readonly output: string;
  /** Bounded (read what the topic holds now) for the reference run; the cluster runs until stopped. */
  readonly bounded: boolean;
  /** Milliseconds each record waits in the first map (so a process can be killed while it works). */
  readonly slowMs?: number;
}

/** An input record's event time: 10 ms per id, so a window of {@link WINDOW_MS} holds 1,000 ids. */
export const MS_PER_ID = 10;
export const WINDOW_MS = 10_000;

interface Doubled {
  readonly key: string;
  readonly id: number;
  readonly double: number;
}

/**
 * The job: double each id, key by key, then (1) describe each record with its key's running count and (2) count
 * and sum the ids of each key in tumbling event-time windows, written as `W<key>:<window>:<count>:<sum>`; both
 * into one output topic, keyed by what precedes the first ':'.
 */
export function buildClusterTestJob(env: StreamExecutionEnvironment, job: ClusterTestJob): void {
  let source = KafkaSource.builder<ClusterTestEvent>()
    .setBootstrapServers(job.bootstrapServers)
    .setTopics(job.input)
    .setStartingOffsets(OffsetsInitializer.earliest())
    .setValueOnlyDeserializer(Deserializers.json<ClusterTestEvent>());
  if (job.bounded) source = source.setBounded(OffsetsInitializer.latest());
  const sink = (name: string) => lineSink(job.bootstrapServers, job.output, name);
  const wait = new Int32Array(new SharedArrayBuffer(4));
  const slowMs = job.slowMs ?? 0;
  const keyed = env
    .fromSource(
      source.build(),
      WatermarkStrategy.forMonotonousTimestamps<ClusterTestEvent>().withTimestampAssigner(
        (e) => e.id * MS_PER_ID,
      ),
      'events',
    )
    .map((e): Doubled => {
      if (slowMs > 0) Atomics.wait(wait, 0, 0, slowMs);
      return { key: e.key, id: e.id, double: e.id * 2 };
    }, 'double')
    .keyBy((e) => e.key);
  keyed
    .process(new RunningCount<Doubled>((e, count) => `${e.key}:${e.id}:${e.double}:${count}`), 'count')
    .uid('count')
    .sinkTo(sink('count'), 'output');
  keyed
    .window(TumblingEventTimeWindows.of(WINDOW_MS))
    .aggregate(windowSum<Doubled>(MS_PER_ID, WINDOW_MS))
    .uid('window')
    .sinkTo(sink('window'), 'window-output');
}

/**
 * The LMDB backend, with a fault: after SIGUSR2, the process kills itself (SIGKILL) right after its next write to a
 * task's local store, before anything else runs (the commit whose snapshot the write holds has not returned).
 */
function crashingAfterStoreWrite(backend: LmdbStateBackend): StateBackend {
  let armed = false;
  process.on('SIGUSR2', () => (armed = true));
  const crash = (): void => {
    if (!armed) return;
    armed = false;
    setImmediate(() => {
      process.stdout.write('CRASHING after a store write\n');
      process.kill(process.pid, 'SIGKILL');
    });
  };
  const stores = backend.localStores;
  const localStores: LocalStores = {
    root: stores.root,
    open: (context, directory, options) =>
      stores.open(context, directory, {
        ...options,
        beforeWrite: () => {
          options.beforeWrite();
          crash();
        },
      }),
    openBytes: (directory, options) =>
      stores.openBytes(directory, {
        ...options,
        beforeWrite: () => {
          options.beforeWrite();
          crash();
        },
      }),
  };
  return {
    name: backend.name,
    createKeyedStateBackend: (c) => backend.createKeyedStateBackend(c),
    localStores,
  };
}

// As a process of the cluster: node --import tsx cluster-job.ts <bootstrap> <job id> <input> <output> <slow ms>
// [LMDB directory: keyed state in LMDB there instead of on the heap] ['crash-on-store-write': see above, or
// 'standbys=<n>': standbyReplicas n]
if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const [bootstrapServers, jobId, input, output, slowMs, lmdbPath, fault] = process.argv.slice(2);
  const env = StreamExecutionEnvironment.create({
    parallelism: 4,
    metrics: false,
    cluster: {
      bootstrapServers: bootstrapServers!,
      jobId: jobId!,
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 500,
      commitIntervalMs: 100,
      standbyReplicas: fault?.startsWith('standbys=') === true ? Number(fault.slice('standbys='.length)) : 0,
    },
  });
  if (lmdbPath !== undefined) {
    const lmdb = new LmdbStateBackend({ path: lmdbPath });
    env.setStateBackend(fault === 'crash-on-store-write' ? crashingAfterStoreWrite(lmdb) : lmdb);
  }
  buildClusterTestJob(env, {
    bootstrapServers: bootstrapServers!,
    input: input!,
    output: output!,
    bounded: false,
    slowMs: Number(slowMs ?? 0),
  });
  await env.execute('cluster-test');
  process.stdout.write('LEFT\n');
}
