// What one cluster task's commit costs: wall time, client CPU and broker CPU per transaction, for 1 to N tasks in one process.
//
//   WEIR_KAFKA_BOOTSTRAP=<broker> node --import tsx bench/kafka/transaction-cost.ts [tasks,tasks,...]
//     [partitions per transaction,...] [commits per task] [runs] [producer properties as JSON]
//
// The last argument overrides the task producer's client properties, e.g. '{"retry.backoff.ms":100}' for
// librdkafka's default backoff instead of the task runtime's 20 ms.
//
// Each task is the task runtime's own TaskTransaction (a transactional producer and an offset consumer, as
// `ClusterTask` opens them) and loops as a busy task does: one small record into each of K partitions of the
// output (K = 1: a task writing one output partition; K = P: a task writing a record or a watermark marker into
// every partition of a P-partition repartition topic), then commit with its input offset (sendOffsetsToTransaction,
// commitTransaction, beginTransaction); the broker writes a transaction marker into each partition the
// transaction touched. The tasks of a
// setup run concurrently in this process, so with several the broker's transaction coordinator serves their
// commits at once. Measured over the commits after 5 warm-up ones per task: each commit's wall time (median, 90th
// percentile), commits per second in all, this process's CPU time (process.cpuUsage: every thread, librdkafka's
// included) and the broker's (/proc/<pid>/stat, less its idle rate measured first) per commit. A first round warms
// up and is not counted. The broker's pid as in cluster-throughput.ts.
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TaskTransaction } from '../../src/execution/cluster/task-transaction.ts';
import { bootstrapServers, createTopic, uniqueTopic } from '../../test/kafka/kafka-test-cluster.ts';

const taskCounts = (process.argv[2] ?? '1,8').split(',').map(Number);
const partitionCounts = (process.argv[3] ?? '1,16').split(',').map(Number);
const commitsPerTask = Number(process.argv[4] ?? 100);
const runs = Number(process.argv[5] ?? 3);
const properties = JSON.parse(process.argv[6] ?? '{}') as Record<string, string | number | boolean>;
const WARM_UP = 5;
const root = fileURLToPath(new URL('../../', import.meta.url));
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

function brokerCpu(): number {
  const given = process.env.WEIR_KAFKA_BROKER_PID;
  const file = join(process.env.WEIR_KAFKA_STATE ?? join(root, '.weir-tmp', 'kafka'), 'pid');
  const pid =
    given !== undefined && given !== ''
      ? given
      : existsSync(file)
        ? readFileSync(file, 'utf8').trim()
        : undefined;
  if (pid === undefined) return Number.NaN;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

const processCpu = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

interface Figures {
  readonly medianMs: number;
  readonly p90Ms: number;
  readonly commitsPerSecond: number;
  readonly clientMsPerCommit: number;
  readonly brokerMsPerCommit: number;
}

async function measure(tasks: number, partitions: number): Promise<Figures> {
  const output = uniqueTopic('bench-tx-out');
  const input = uniqueTopic('bench-tx-in');
  await createTopic(output, partitions);
  await createTopic(input, tasks);
  const transactions = await Promise.all(
    Array.from({ length: tasks }, () =>
      TaskTransaction.open(uniqueTopic('bench-tx'), bootstrapServers(), properties, 60_000),
    ),
  );
  const latencies: number[] = [];
  const loop = async (transaction: TaskTransaction, task: number, from: number, to: number) => {
    for (let n = from; n < to; n++) {
      for (let partition = 0; partition < partitions; partition++)
        transaction.send({
          topic: output,
          partition,
          key: null,
          value: `${task}:${n}`,
          timestamp: -1,
          headers: null,
        });
      const start = performance.now();
      await transaction.commit([{ topic: input, partition: task, offset: n + 1 }]);
      if (n >= WARM_UP) latencies.push(performance.now() - start);
    }
  };
  try {
    await Promise.all(transactions.map((t, i) => loop(t, i, 0, WARM_UP)));
    const clientBefore = processCpu();
    const brokerBefore = brokerCpu();
    const start = performance.now();
    await Promise.all(transactions.map((t, i) => loop(t, i, WARM_UP, WARM_UP + commitsPerTask)));
    const seconds = (performance.now() - start) / 1000;
    const commits = tasks * commitsPerTask;
    const sorted = latencies.sort((a, b) => a - b);
    return {
      medianMs: sorted[Math.floor(sorted.length / 2)]!,
      p90Ms: sorted[Math.floor(sorted.length * 0.9)]!,
      commitsPerSecond: commits / seconds,
      clientMsPerCommit: ((processCpu() - clientBefore) / commits) * 1000,
      brokerMsPerCommit: ((brokerCpu() - brokerBefore - brokerIdle * seconds) / commits) * 1000,
    };
  } finally {
    await Promise.all(transactions.map((t) => t.close()));
  }
}

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const loads = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

process.stdout.write(`${commitsPerTask} commits per task, ${runs} runs; load ${loads()}\n`);
/** The broker's CPU seconds per second with nothing connected, measured over 5 s first and subtracted. */
const idleFrom = brokerCpu();
await new Promise((resolve) => setTimeout(resolve, 5_000));
const brokerIdle = (brokerCpu() - idleFrom) / 5;
process.stdout.write(`broker idle: ${(brokerIdle * 1000).toFixed(0)} ms of CPU per second\n`);
const setups = taskCounts.flatMap((tasks) => partitionCounts.map((partitions) => ({ tasks, partitions })));
const results = new Map<(typeof setups)[number], Figures[]>(setups.map((s) => [s, []]));
// Round 0 warms the broker's and this process's compilers up on the transaction paths and is not counted.
for (let r = 0; r <= runs; r++)
  for (const setup of setups) {
    const f = await measure(setup.tasks, setup.partitions);
    if (r === 0) continue;
    results.get(setup)!.push(f);
    process.stdout.write(
      `run ${r + 1}, ${setup.tasks} task(s), ${setup.partitions} partition(s) per transaction: commit ${f.medianMs.toFixed(1)} ms median, ${f.p90Ms.toFixed(1)} ms p90; ` +
        `${f.commitsPerSecond.toFixed(0)} commits/s; CPU per commit: client ${f.clientMsPerCommit.toFixed(2)} ms, ` +
        `broker ${f.brokerMsPerCommit.toFixed(2)} ms; load ${loadavg()[0]!.toFixed(1)}\n`,
    );
  }
process.stdout.write(
  `\nload ${loads()}\n| tasks | partitions per transaction | commit, median ms | commit, p90 ms | commits/s | client CPU ms/commit | broker CPU ms/commit |\n| --- | --- | --- | --- | --- | --- | --- |\n`,
);
for (const [{ tasks, partitions }, figures] of results) {
  const cell = (pick: (f: Figures) => number, digits: number) => {
    const xs = figures.map(pick);
    return `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)})`;
  };
  process.stdout.write(
    `| ${tasks} | ${partitions} | ${cell((f) => f.medianMs, 1)} | ${cell((f) => f.p90Ms, 1)} | ${cell((f) => f.commitsPerSecond, 0)} ` +
      `| ${cell((f) => f.clientMsPerCommit, 2)} | ${cell((f) => f.brokerMsPerCommit, 2)} |\n`,
  );
}
