// What changelog topics cost in cluster mode: messages, bytes and snapshot time per commit, and restore time by state size.
//
//   WEIR_KAFKA_BOOTSTRAP=<broker> node --import tsx bench/kafka/changelog-cost.ts [keys,keys,...] [records per key]
//     [topic configs: weir,broker] [ms between the first process's exit and the restore]
//
// Topic configs: 'weir' creates the changelog topics with Weir's defaults (CHANGELOG_TOPIC_CONFIG), 'broker' with
// the test broker's log settings (16 MiB segments, 7 days, dirty ratio 0.5: what changelog topics had before Weir
// set its own); both run for each key count, alternating, on fresh topics. 'local' is 'weir' with keyed state in
// LMDB local stores: after the first process stops, a second one with a directory of its own restores in full and
// works on [changed records] more records (default 10, keys 0..9), stops, and the first comes back on its
// directory: its restore reads only what the second wrote after the first's checkpoint. Both restores are printed.
//
//   ... changelog-cost.ts 100000 2 weir,local 0 [changed records]
//
// 'failover' and 'standby' measure a failover between two processes with LMDB local stores, without and with a
// standby replica (standbyReplicas 1): both start together and split the tasks, work through the K × R records,
// then [changed records] more; 2 s later the one with more keyed tasks is SIGKILLed and the survivor takes them
// over. With a standby it reads only the changelog committed since its last catch-up; without, the whole
// partitions. The survivor's restores of the moved tasks are printed (messages, bytes, the slowest changelog read),
// the time from the kill to their restores (the 6 s session timeout is most of it), and what each standby read.
//
//   ... changelog-cost.ts 20000 2 failover,standby,failover,standby 0 10
//
// For each key count K: K × R records (R per key, keys interleaved) are preloaded into a 4-partition topic; one
// process of bench/kafka/changelog-job.ts (Kafka topic → keyBy → running count in ValueState → KafkaSink, 8 tasks,
// 100 ms commits) works through them and is stopped with SIGTERM once a read_committed reader saw every output
// record; its tasks log what their changelog writer wrote (messages, bytes, commits, milliseconds snapshotting).
// Then a second process takes the same job over and restores the K counts from the changelog; its tasks log how
// many messages and bytes they read and how long the restore took. Figures are summed over the 4 keyed tasks
// (restore: the slowest task, as they restore in parallel). The machine's load is printed with the results.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  call,
  kafkaClient,
  type ClientMessage,
  type ClientMetadata,
} from '../../src/connectors/kafka/kafka-client.ts';
import { bootstrapServers, createTopic, produce, uniqueTopic } from '../../test/kafka/kafka-test-cluster.ts';

const jobFile = fileURLToPath(new URL('./changelog-job.ts', import.meta.url));
const keyCounts = (process.argv[2] ?? '1000,10000,100000').split(',').map(Number);
const perKey = Number(process.argv[3] ?? 2);
const configNames = (process.argv[4] ?? 'weir').split(',');
const restoreDelayMs = Number(process.argv[5] ?? 0);
const changedRecords = Number(process.argv[6] ?? 10);
const CONFIGS: Record<string, Record<string, string> | undefined> = {
  weir: undefined,
  broker: { 'segment.bytes': '16777216', 'segment.ms': '604800000', 'min.cleanable.dirty.ratio': '0.5' },
  local: undefined,
  failover: undefined,
  standby: undefined,
};
const stores = mkdtempSync(join(tmpdir(), 'weir-bench-stores-'));
const PARTITIONS = 4;

/** A process of the job; resolves its log lines once it exited. */
function member(
  jobId: string,
  input: string,
  output: string,
  config: Record<string, string> | undefined,
  lmdb = '',
  standbys = 0,
) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      jobFile,
      bootstrapServers(),
      jobId,
      input,
      output,
      ...(config === undefined ? [] : [JSON.stringify(config)]),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        UV_THREADPOOL_SIZE: '32',
        WEIR_LOG_LEVEL: 'info',
        WEIR_BENCH_LMDB: lmdb,
        WEIR_BENCH_STANDBYS: String(standbys),
      },
    },
  );
  const lines: string[] = [];
  const take = (chunk: Buffer) =>
    lines.push(
      ...chunk
        .toString()
        .split('\n')
        .filter((l) => l !== ''),
    );
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, lines, exited };
}

/** Reads the output topic with read_committed until `count` records arrived. */
async function waitForOutput(topic: string, count: number): Promise<void> {
  const { KafkaConsumer } = kafkaClient();
  const consumer = new KafkaConsumer(
    {
      'bootstrap.servers': bootstrapServers(),
      'group.id': uniqueTopic('bench-tail'),
      'enable.auto.commit': false,
      'isolation.level': 'read_committed',
    },
    { 'auto.offset.reset': 'earliest' },
  );
  await call<ClientMetadata>('connecting', (cb) => consumer.connect({ timeout: 30_000 }, cb));
  consumer.assign(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, offset: 0 })));
  consumer.setDefaultConsumeTimeout(50);
  let seen = 0;
  const deadline = performance.now() + 900_000;
  while (seen < count) {
    if (performance.now() > deadline) throw new Error(`saw ${seen} of ${count} records in 15 minutes`);
    seen += (await call<ClientMessage[]>('tailing', (cb) => consumer.consume(5_000, cb))).length;
  }
  await call('disconnecting', (cb) => consumer.disconnect(cb));
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const numbers = (lines: string[], pattern: RegExp) =>
  lines
    .map((l) => pattern.exec(l))
    .filter((m) => m !== null)
    .map((m) => m!.slice(1).map(Number));

for (const keys of keyCounts)
  for (const configName of configNames) {
    const config = CONFIGS[configName];
    const input = uniqueTopic('bench-changelog-in');
    const output = uniqueTopic('bench-changelog-out');
    const jobId = uniqueTopic('bench-changelog');
    await createTopic(input, PARTITIONS);
    await createTopic(output, PARTITIONS);
    const records = keys * perKey;
    for (let from = 0; from < records; from += 50_000) {
      const batch = Array.from({ length: Math.min(50_000, records - from) }, (_, i) => {
        const id = from + i;
        return { partition: id % PARTITIONS, value: JSON.stringify({ id, key: `k${id % keys}` }) };
      });
      await produce(input, batch);
    }
    if (configName === 'failover' || configName === 'standby') {
      process.stdout.write(
        `[${configName}] ${keys} keys, ${records} records: ${await failover(jobId, input, output, records, configName === 'standby' ? 1 : 0)}\n`,
      );
      continue;
    }
    const started = performance.now();
    const local = configName === 'local';
    const first = member(jobId, input, output, config, local ? join(stores, jobId, 'a') : '');
    await waitForOutput(output, records);
    const seconds = (performance.now() - started) / 1000;
    first.child.kill('SIGTERM');
    await first.exited;
    const written = numbers(
      first.lines,
      /task 1_\d changelog: (\d+) messages, (\d+) bytes in (\d+) of (\d+) commits; (\d+) ms snapshotting/,
    );
    const [messages, bytes, changed, commits, snapshotMs] = [0, 1, 2, 3, 4].map((i) =>
      sum(written.map((w) => w[i]!)),
    ) as [number, number, number, number, number];

    if (restoreDelayMs > 0) await new Promise((r) => setTimeout(r, restoreDelayMs));
    /** Starts a process, waits until its 4 keyed tasks restored, and returns what each logged: messages, bytes, ms. */
    const restoring = async (lmdb: string, then?: () => Promise<void>) => {
      const m = member(jobId, input, output, config, lmdb);
      const restoredAt = () =>
        numbers(
          m.lines,
          /task 1_\d restored (?:its local store and )?\d+ key group snapshots from (\d+) changelog messages \((\d+) bytes[^)]*\) in (\d+) ms/,
        );
      const deadline = performance.now() + 300_000;
      while (restoredAt().length < 4 && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      await then?.();
      m.child.kill('SIGTERM');
      await m.exited;
      return { restores: restoredAt(), lines: m.lines };
    };
    /** Per keyed task, from 'assigned' to 'started' in its log: the changelog read and everything else a start does. */
    const startMs = (lines: string[]) => {
      const at = new Map<string, number>();
      const out: number[] = [];
      for (const line of lines) {
        const m = /(\d{4}-\d\d-\d\dT[\d:.]+Z) INFO weir: task (1_\d) (assigned|started)/.exec(line);
        if (m === null) continue;
        if (m[3] === 'assigned') at.set(m[2]!, Date.parse(m[1]!));
        else if (at.has(m[2]!)) out.push(Date.parse(m[1]!) - at.get(m[2]!)!);
      }
      return out;
    };
    const describe = ({ restores, lines }: { restores: number[][]; lines: string[] }) =>
      `${sum(restores.map((r) => r[0]!))} messages, ${(sum(restores.map((r) => r[1]!)) / 1024).toFixed(0)} kB, ` +
      `changelog read: slowest task ${Math.max(...restores.map((r) => r[2]!))} ms (${restores.map((r) => r[2]).join(', ')}), ` +
      `task start: slowest ${Math.max(...startMs(lines))} ms`;
    let local2 = '';
    const second = await restoring(local ? join(stores, jobId, 'b') : '', async () => {
      if (!local) return;
      // What changes while the first process is away: a few keys' counts, by another process.
      await produce(
        input,
        Array.from({ length: changedRecords }, (_, i) => {
          const id = records + i;
          return { partition: id % PARTITIONS, value: JSON.stringify({ id, key: `k${id % keys}` }) };
        }),
      );
      await waitForOutput(output, records + changedRecords);
    });
    if (local) {
      const back = await restoring(join(stores, jobId, 'a'));
      local2 = `; the first process back on its local stores after ${changedRecords} changed records: ${describe(back)}`;
    }
    process.stdout.write(
      `[${configName}${restoreDelayMs > 0 ? `, restore ${restoreDelayMs} ms after` : ''}] ${keys} keys, ${records} records in ${seconds.toFixed(1)} s: changelog ${messages} messages, ` +
        `${(bytes / 1024).toFixed(0)} kB over ${changed} commits with changes (of ${commits}): ` +
        `${(messages / Math.max(changed, 1)).toFixed(1)} messages and ${(bytes / Math.max(changed, 1) / 1024).toFixed(1)} kB ` +
        `per such commit, ${(snapshotMs / Math.max(changed, 1)).toFixed(1)} ms snapshotting per commit; ` +
        `restore${local ? ' in full (new directory)' : ''}: ${describe(second)}${local2}\n`,
    );
  }
/**
 * Two processes with LMDB stores (and `standbys` standby replicas) run the job; once all `records` and
 * `changedRecords` more are out, and 2 s later, the first is SIGKILLed: what the survivor's restores of the moved
 * keyed tasks read.
 */
async function failover(
  jobId: string,
  input: string,
  output: string,
  records: number,
  standbys: number,
): Promise<string> {
  const a = member(jobId, input, output, undefined, join(stores, jobId, 'a'), standbys);
  const b = member(jobId, input, output, undefined, join(stores, jobId, 'b'), standbys);
  await waitForOutput(output, records);
  await produce(
    input,
    Array.from({ length: changedRecords }, (_, i) => {
      const id = records + i;
      return { partition: id % PARTITIONS, value: JSON.stringify({ id, key: `k${id % keyCount(records)}` }) };
    }),
  );
  await waitForOutput(output, records + changedRecords);
  await new Promise((r) => setTimeout(r, 2_000));
  const ownedBy = (lines: string[]) => {
    const owned = new Set<string>();
    for (const line of lines) {
      const m = /task (1_\d) (started|stopped)/.exec(line);
      if (m !== null && m[2] === 'started') owned.add(m[1]!);
      else if (m !== null) owned.delete(m[1]!);
    }
    return owned;
  };
  // The process with more keyed tasks is killed; the other takes them over.
  const [victim, survivor] = ownedBy(a.lines).size >= ownedBy(b.lines).size ? [a, b] : [b, a];
  const owned = ownedBy(victim.lines);
  const before = survivor.lines.length;
  const killedAt = performance.now();
  victim.child.kill('SIGKILL');
  await victim.exited;
  const restored = () =>
    numbers(
      survivor.lines.slice(before),
      /task 1_\d restored (?:its local store and )?\d+ key group snapshots from (\d+) changelog messages \((\d+) bytes[^)]*\) in (\d+) ms/,
    );
  const deadline = performance.now() + 300_000;
  while (restored().length < owned.size && performance.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  const takeoverMs = performance.now() - killedAt;
  const standbyLines = survivor.lines.filter((l) => / standby 1_\d stopped \(its task is assigned/.test(l));
  survivor.child.kill('SIGTERM');
  await survivor.exited;
  const r = restored();
  return (
    `${owned.size} keyed tasks moved (${[...owned].join(' ')}); survivor's restore: ${sum(r.map((x) => x[0]!))} messages, ` +
    `${(sum(r.map((x) => x[1]!)) / 1024).toFixed(1)} kB, slowest changelog read ${Math.max(...r.map((x) => x[2]!))} ms ` +
    `(${r.map((x) => x[2]).join(', ')}); kill to restored: ${(takeoverMs / 1000).toFixed(1)} s` +
    (standbys > 0 ? `; ${standbyLines.map((l) => l.replace(/^.*standby/, 'standby')).join('; ')}` : '')
  );
}

/** The key count of a run of `records` records (R per key). */
function keyCount(records: number): number {
  return records / perKey;
}

rmSync(stores, { recursive: true, force: true });
process.stdout.write(
  `load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n`,
);
