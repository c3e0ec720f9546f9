// Cluster mode's throughput and CPU per record: one job in one process without the cluster, and as 1, 2 and 3 processes of a cluster.
//
//   WEIR_KAFKA_BOOTSTRAP=<broker> node --import tsx bench/kafka/cluster-throughput.ts [records] [runs] [setups]
//
// setups: a comma-separated list of `local` (the job in one process without the cluster: keyBy in process,
// exactly-once sink on 100 ms checkpoints) and process counts (`1,2,3`: the job in cluster mode on that many
// processes); default `local,1,2,3`. The job is bench/kafka/changelog-job.ts (a 4-partition topic → keyBy → a
// running count per key of 1,000, its state in the changelog → KafkaSink exactly once; in cluster mode 8 tasks,
// 100 ms commits), started as child processes (UV_THREADPOOL_SIZE=32) on a fresh, empty input topic.
//
// A run measures nothing until the job is settled: in cluster mode every process runs its share of the 8 tasks
// (its log says which, as in the tests), then one warm-up record per key goes through and its output is read back
// (read_committed). Only then is the input written, and the run measures from the first input record written to
// the last output record read: records/s, and the CPU time the job's processes and the broker spent in that
// interval (utime + stime from /proc/<pid>/stat, all threads), per record. CPU time per record holds under load
// where wall-clock rates do not. The broker's figure includes taking the input in (measured alone once per round
// as 'broker, ingest only', to subtract) and serving the reader of the output; the broker's idle CPU rate (5 s with
// nothing running, before the first run) times the interval is subtracted from its figures. A run whose tasks moved during the
// measurement says so. Setups alternate within each round; the machine's load is printed with every run.
//
// The broker's pid is $WEIR_KAFKA_BROKER_PID, else the one scripts/kafka/broker.sh wrote in this checkout
// ($WEIR_KAFKA_STATE or .weir-tmp/kafka); without it the broker's CPU is not reported.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  call,
  kafkaClient,
  type ClientConsumer,
  type ClientMessage,
  type ClientMetadata,
} from '../../src/connectors/kafka/kafka-client.ts';
import {
  bootstrapServers,
  createTopic,
  highWatermarks,
  produce,
  readAll,
  uniqueTopic,
} from '../../test/kafka/kafka-test-cluster.ts';

const jobFile = fileURLToPath(new URL('./changelog-job.ts', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));
const records = Number(process.argv[2] ?? 30_000);
const runs = Number(process.argv[3] ?? 3);
const setups = (process.argv[4] ?? 'local,1,2,3').split(',');
const PARTITIONS = 4;
const TASKS = 8;
const KEYS = 1_000;
const WAIT_MS = 300_000;
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** CPU seconds (user + system, every thread) a process has used so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

function brokerPid(): number | undefined {
  const given = process.env.WEIR_KAFKA_BROKER_PID;
  if (given !== undefined && given !== '') return Number(given);
  const file = join(process.env.WEIR_KAFKA_STATE ?? join(root, '.weir-tmp', 'kafka'), 'pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
}
const broker = brokerPid();
const brokerCpu = (): number => (broker === undefined ? Number.NaN : cpuSeconds(broker));
/** The broker's CPU seconds per second with nothing connected (its own housekeeping), measured over 5 s first. */
let brokerIdle = 0;

/** Input records `first .. first + count - 1`: key `k<id mod 1000>`, a key's records in one partition, in order. */
function events(first: number, count: number): { partition: number; value: string }[] {
  return Array.from({ length: count }, (_, i) => {
    const id = first + i;
    return { partition: (id % KEYS) % PARTITIONS, value: JSON.stringify({ id, key: `k${id % KEYS}` }) };
  });
}

async function produceAll(topic: string, first: number, count: number): Promise<void> {
  for (let from = 0; from < count; from += 50_000)
    await produce(topic, events(first + from, Math.min(50_000, count - from)));
}

/** One process of the job, with what it logged. */
class Member {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  readonly exited: Promise<void>;

  constructor(jobId: string, input: string, output: string) {
    this.child = spawn(
      process.execPath,
      ['--import', 'tsx', jobFile, bootstrapServers(), jobId, input, output],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, UV_THREADPOOL_SIZE: '32', WEIR_LOG_LEVEL: 'info' },
      },
    );
    const take = (chunk: Buffer): void => {
      for (const line of chunk.toString().split('\n')) if (line !== '') this.lines.push(line);
    };
    this.child.stdout!.on('data', take);
    this.child.stderr!.on('data', take);
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  /** The tasks it runs now (started and not stopped), from its log. */
  tasks(): string[] {
    const running = new Set<string>();
    for (const line of this.lines) {
      const m = /task (\d+_\d+) (started|stopped)/.exec(line);
      if (m === null) continue;
      if (m[2] === 'started') running.add(m[1]!);
      else running.delete(m[1]!);
    }
    return [...running].sort();
  }

  cpu(): number {
    return cpuSeconds(this.child.pid!);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    // A process that does not leave within a minute is killed: the next run must not share the machine with it.
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 60_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** A read_committed reader of the whole output topic, counting what it has seen and when the last batch came. */
class OutputTail {
  seen = 0;
  lastAt = 0;
  private stopped = false;
  private readonly loop: Promise<void>;

  private constructor(private readonly consumer: ClientConsumer) {
    this.loop = this.run();
  }

  static async open(topic: string): Promise<OutputTail> {
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
    consumer.setDefaultConsumeTimeout(20);
    return new OutputTail(consumer);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const batch = await call<ClientMessage[]>('tailing', (cb) => this.consumer.consume(5_000, cb));
      if (batch.length === 0) continue;
      this.seen += batch.length;
      this.lastAt = performance.now();
    }
  }

  async waitFor(count: number, members: readonly Member[]): Promise<void> {
    const deadline = performance.now() + WAIT_MS;
    while (this.seen < count) {
      if (performance.now() > deadline)
        throw new Error(
          `saw ${this.seen} of ${count} output records in ${WAIT_MS / 1000} s; logs:\n` +
            members.map((m) => m.lines.slice(-30).join('\n')).join('\n--\n'),
        );
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.loop;
    await call('disconnecting', (cb) => this.consumer.disconnect(cb));
  }
}

/** Waits until the processes split the 8 tasks evenly (as the cooperative-sticky assignor does), none twice. */
async function settled(members: readonly Member[]): Promise<void> {
  const deadline = performance.now() + WAIT_MS;
  const even = Array.from({ length: members.length }, (_, i) =>
    Math.floor((TASKS + i) / members.length),
  ).sort();
  for (;;) {
    const owned = members.map((m) => m.tasks());
    const all = owned.flat().sort();
    const sizes = owned.map((t) => t.length).sort();
    if (all.length === TASKS && new Set(all).size === TASKS && sizes.join() === even.join()) return;
    if (performance.now() > deadline)
      throw new Error(`the tasks did not settle (owned: ${JSON.stringify(owned)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface RunFigures {
  readonly rate: number;
  /** CPU seconds of the job's processes and of the broker per record, in microseconds. */
  readonly processUs: number;
  readonly brokerUs: number;
  readonly moved: boolean;
  readonly load: number;
  /** In cluster mode, what the repartition topic held after the run: per second from the first warm-up record. */
  readonly repartition?: { readonly markersPerSecond: number; readonly controlPerSecond: number };
}

/** Watermark markers (header weir.marker) and transaction control records in a topic, counted after the run. */
async function topicMessages(topic: string): Promise<{ markers: number; control: number }> {
  const ends = await highWatermarks(topic);
  const messages = await readAll(topic, 'read_uncommitted');
  const offsets = [...ends.values()].reduce((sum, end) => sum + end, 0);
  return {
    markers: messages.filter((m) => m.headers.some(([name]) => name === 'weir.marker')).length,
    control: offsets - messages.length,
  };
}

async function run(setup: string): Promise<RunFigures> {
  const input = uniqueTopic('bench-cluster-in');
  const output = uniqueTopic('bench-cluster-out');
  await createTopic(input, PARTITIONS);
  await createTopic(output, PARTITIONS);
  const checkpoints = setup === 'local' ? mkdtempSync(join(tmpdir(), 'weir-bench-cluster-')) : undefined;
  const jobId = checkpoints === undefined ? uniqueTopic('bench-cluster') : `local:${checkpoints}`;
  const count = setup === 'local' ? 1 : Number(setup);
  const members = Array.from({ length: count }, () => new Member(jobId, input, output));
  const tail = await OutputTail.open(output);
  try {
    if (checkpoints === undefined) await settled(members);
    const before = members.map((m) => m.tasks().join());
    const runStart = performance.now();
    await produceAll(input, 0, KEYS);
    await tail.waitFor(KEYS, members);

    const load = loadavg()[0]!;
    const processBefore = members.map((m) => m.cpu());
    const brokerBefore = brokerCpu();
    const start = performance.now();
    await produceAll(input, KEYS, records);
    await tail.waitFor(KEYS + records, members);
    const processAfter = members.map((m) => m.cpu());
    const brokerAfter = brokerCpu() - brokerIdle * ((performance.now() - start) / 1000);
    const seconds = (tail.lastAt - start) / 1000;
    const processSeconds = processAfter.reduce((sum, cpu, i) => sum + cpu - processBefore[i]!, 0);
    const runSeconds = (tail.lastAt - runStart) / 1000;
    const moved = members.some((m, i) => m.tasks().join() !== before[i]);
    await Promise.all(members.map((m) => m.stop()));
    const repartition =
      checkpoints === undefined ? await topicMessages(`${jobId}-count-repartition`) : undefined;
    return {
      rate: records / seconds,
      processUs: (processSeconds / records) * 1e6,
      brokerUs: ((brokerAfter - brokerBefore) / records) * 1e6,
      moved,
      load,
      ...(repartition === undefined
        ? {}
        : {
            repartition: {
              markersPerSecond: repartition.markers / runSeconds,
              controlPerSecond: repartition.control / runSeconds,
            },
          }),
    };
  } finally {
    await Promise.all(members.map((m) => m.stop()));
    await tail.close();
    if (checkpoints !== undefined) rmSync(checkpoints, { recursive: true, force: true });
  }
}

/** The broker's CPU time per record for taking the input in alone: a topic nobody reads, `records` records. */
async function ingestOnly(): Promise<number> {
  const topic = uniqueTopic('bench-cluster-ingest');
  await createTopic(topic, PARTITIONS);
  const before = brokerCpu();
  const start = performance.now();
  await produceAll(topic, 0, records);
  return ((brokerCpu() - before - brokerIdle * ((performance.now() - start) / 1000)) / records) * 1e6;
}

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const range = (xs: readonly number[], digits = 0): string =>
  `${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}`;
const loads = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

process.stdout.write(
  `${records} records of ${KEYS} keys per run, ${runs} runs of each of ${setups.join(', ')}; ` +
    `broker pid ${broker ?? 'unknown (no broker CPU)'}; load ${loads()}\n`,
);
{
  const before = brokerCpu();
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  brokerIdle = (brokerCpu() - before) / 5;
  process.stdout.write(
    `broker idle: ${(brokerIdle * 1000).toFixed(0)} ms of CPU per second (subtracted from its figures below)\n`,
  );
}
const results = new Map<string, RunFigures[]>(setups.map((s) => [s, []]));
const ingest: number[] = [];
for (let r = 0; r < runs; r++) {
  ingest.push(await ingestOnly());
  process.stdout.write(`run ${r + 1}, broker, ingest only: ${ingest.at(-1)!.toFixed(1)} us/record\n`);
  for (const setup of setups) {
    const figures = await run(setup);
    results.get(setup)!.push(figures);
    process.stdout.write(
      `run ${r + 1}, ${setup === 'local' ? 'one process without the cluster' : `${setup} process(es)`}: ` +
        `${Math.round(figures.rate)} records/s; CPU per record: processes ${figures.processUs.toFixed(1)} us, ` +
        `broker ${figures.brokerUs.toFixed(1)} us${figures.moved ? '; TASKS MOVED during the run' : ''}; ` +
        (figures.repartition === undefined
          ? ''
          : `repartition topic: ${figures.repartition.markersPerSecond.toFixed(0)} watermark markers/s, ` +
            `${figures.repartition.controlPerSecond.toFixed(0)} transaction markers/s; `) +
        `load ${figures.load.toFixed(1)}\n`,
    );
  }
}
const local = results.get('local');
const localCpu = local === undefined ? undefined : median(local.map((f) => f.processUs));
process.stdout.write(
  `\nload ${loads()}; broker, ingest only: median ${median(ingest).toFixed(1)} us/record (${range(ingest, 1)})\n` +
    `| setup | records/s | process CPU us/record | broker CPU us/record | processes + broker | process CPU vs local |\n` +
    `| --- | --- | --- | --- | --- | --- |\n`,
);
for (const [setup, figures] of results) {
  const rate = figures.map((f) => f.rate);
  const cpu = figures.map((f) => f.processUs);
  const brokerUs = figures.map((f) => f.brokerUs);
  const total = figures.map((f) => f.processUs + f.brokerUs);
  process.stdout.write(
    `| ${setup === 'local' ? 'one process, no cluster' : `cluster, ${setup} process(es)`} ` +
      `| ${Math.round(median(rate))} (${range(rate)}) | ${median(cpu).toFixed(1)} (${range(cpu, 1)}) ` +
      `| ${median(brokerUs).toFixed(1)} (${range(brokerUs, 1)}) | ${median(total).toFixed(1)} (${range(total, 1)}) ` +
      `| ${localCpu === undefined ? '-' : `${(median(cpu) / localCpu).toFixed(2)}x`} |\n`,
  );
}
