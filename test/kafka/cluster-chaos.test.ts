// Cluster mode under failure: a job on three brokers whose processes are SIGKILLed, added and removed, and one of whose brokers is SIGKILLed, writes exactly the output of a single-process run.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/index.ts';
import { SeededRandom } from '../../src/connectors/seeded-random.ts';
import { BrokerCluster } from './broker-cluster.ts';
import { buildChaosJob, MS_PER_ID, WINDOW_MS, type ChaosEvent } from './chaos-job.ts';
import { JobProcesses, OutputTail, type Member } from './cluster-processes.ts';
import { createTopic, produce, readAll, uniqueTopic, type TestRecord } from './kafka-test-cluster.ts';

const jobFile = fileURLToPath(new URL('./chaos-job.ts', import.meta.url));
const KEYS = 29;
const PARTITIONS = 2;
const RECORDS = 6_000;
/**
 * The cluster's input is written in slices, each once the output holds the count lines of all but the last slice
 * written: the job always has work in hand, never all of it, so its output grows with its progress and each
 * event of the schedule lands while it works.
 */
const SLICES = 20;
const PROCESSES = 3;
const KILLS = 10;
/** Every wait fails after this long, naming what it waited for. */
const WAIT_MS = 90_000;

/** WEIR_CHAOS_SEED reruns a schedule; without it each run draws its own and prints it. */
const seed =
  process.env.WEIR_CHAOS_SEED === undefined ? randomInt(2 ** 31) : Number(process.env.WEIR_CHAOS_SEED);

/** Input record `id`: its key picks the partition, so a key's records are in id order in one partition. */
function event(id: number, level = new SeededRandom(id).nextInt(100)): TestRecord {
  const key = `k${id % KEYS}`;
  const value: ChaosEvent = { id, key, level };
  return { partition: (id % KEYS) % PARTITIONS, value: JSON.stringify(value) };
}

/**
 * One record per key far ahead in event time, of a level that starts and ends no match: in every input partition
 * the watermark passes every window and every pattern timeout of the records before it. Their own window never
 * fires in the cluster (nothing comes after it), so it is left out of the comparison.
 */
const SENTINEL_ID = 10_010;
const SENTINEL_WINDOW = Math.floor((SENTINEL_ID * MS_PER_ID) / WINDOW_MS);

/** Per output key (`k3`, `Wk3`, `Pk3`, `Tk3`: one operator and one key), its lines in the order they were written. */
function byKey(lines: readonly string[]): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  for (const line of lines) {
    const key = line.slice(0, line.indexOf(':'));
    let list = keys.get(key);
    if (list === undefined) keys.set(key, (list = []));
    list.push(line);
  }
  return new Map([...keys].sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The partitions that cannot take writes now (no leader, or fewer in-sync replicas than min.insync.replicas 2),
 * for a failure message: a job waits on them, whatever it does.
 */
async function unavailablePartitions(cluster: BrokerCluster): Promise<string> {
  try {
    const short = [...(await cluster.topics())].flatMap(([topic, partitions]) =>
      partitions
        .filter((p) => p.leader < 0 || p.isrs.length < 2)
        .map((p) => `${topic}-${p.id} (leader ${p.leader}, isr [${p.isrs.join(' ')}])`),
    );
    return `partitions short of a leader or in-sync replicas: ${short.length === 0 ? 'none' : short.join(', ')}`;
  } catch (error) {
    return `the partitions' metadata could not be read: ${(error as Error).message}`;
  }
}

type ChaosEventKind = 'kill' | 'join' | 'leave' | 'broker-down' | 'broker-up';

/** What happens when the output reaches `at` records. */
interface Scheduled {
  readonly kind: ChaosEventKind;
  readonly at: number;
  /** Which process (an index into those that run tasks) or which broker (0-2). */
  readonly pick: number;
}

/**
 * The seeded schedule: {@link KILLS} process kills, a process that joins and one that leaves (after the join), a
 * broker that goes down and comes back at least a tenth of the output later, at output counts spread over the
 * first 85 % of the run (so each lands while the job works).
 */
function schedule(random: SeededRandom, total: number): Scheduled[] {
  const kinds: ChaosEventKind[] = [
    ...Array<ChaosEventKind>(KILLS).fill('kill'),
    'join',
    'leave',
    'broker-down',
  ];
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = random.nextInt(i + 1);
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  const fractions = kinds.map(() => 0.03 + random.next() * 0.72).sort((a, b) => a - b);
  if (kinds.indexOf('leave') < kinds.indexOf('join')) {
    const [j, l] = [kinds.indexOf('join'), kinds.indexOf('leave')];
    [kinds[j], kinds[l]] = ['leave', 'join'];
  }
  const events: Scheduled[] = kinds.map((kind, i) => ({
    kind,
    at: Math.round(fractions[i]! * total),
    pick: random.nextInt(kind === 'broker-down' ? 3 : 1_000),
  }));
  const down = events.find((e) => e.kind === 'broker-down')!;
  const upAt = down.at + Math.round((0.1 + random.next() * 0.1) * total);
  events.push({ kind: 'broker-up', at: upAt, pick: down.pick });
  return events.sort((a, b) => a.at - b.at);
}

const processes = new JobProcesses(WAIT_MS, { UV_THREADPOOL_SIZE: '40' });
const tails: OutputTail[] = [];
let brokers: BrokerCluster | undefined;

describe('cluster mode under failure: processes and a broker killed while the job runs', () => {
  before(async () => {
    brokers = await BrokerCluster.start();
  });
  after(async () => {
    // WEIR_CHAOS_LOG=<file> keeps every process's log, with when each line came, for a run to be studied.
    if (process.env.WEIR_CHAOS_LOG !== undefined)
      writeFileSync(
        process.env.WEIR_CHAOS_LOG,
        processes.members
          .map((m) => m.lines.map((l) => `${Math.round(l.at)} ${m.name} ${l.text}\n`).join(''))
          .join(''),
      );
    processes.killAll();
    for (const tail of tails) await tail.close();
    await brokers?.stop();
  });

  it(`a job with keyed state, windows and CEP on 3 processes and 3 brokers, with ${KILLS} process SIGKILLs, a join, a leave and a broker SIGKILL, writes exactly the output of a single-process run (seed ${seed})`, async () => {
    process.stdout.write(`# chaos seed ${seed} (rerun: WEIR_CHAOS_SEED=${seed} npm run test:kafka)\n`);
    const cluster = brokers!;
    const servers = cluster.servers;
    const onCluster = { servers, replicationFactor: 3 };
    const input = uniqueTopic('chaos-in');
    const output = uniqueTopic('chaos-out');
    const jobId = uniqueTopic('chaos-job');
    await createTopic(input, PARTITIONS, onCluster);
    await createTopic(output, PARTITIONS, onCluster);
    const records = Array.from({ length: RECORDS }, (_, id) => event(id));
    const sentinels = Array.from({ length: KEYS }, (_, i) => event(SENTINEL_ID + i, 50));

    // The reference: the ordinary engine in one process over the same records in a topic of its own, all written
    // beforehand. Its final watermark fires the sentinels' window too, which the cluster, never at its end, does not.
    const referenceInput = uniqueTopic('chaos-reference-in');
    const referenceOutput = uniqueTopic('chaos-reference-out');
    await createTopic(referenceInput, PARTITIONS, onCluster);
    await createTopic(referenceOutput, PARTITIONS, onCluster);
    await produce(referenceInput, [...records, ...sentinels], servers);
    const env = StreamExecutionEnvironment.create({ parallelism: 4, metrics: false });
    buildChaosJob(env, {
      bootstrapServers: servers,
      input: referenceInput,
      output: referenceOutput,
      bounded: true,
    });
    await env.execute('chaos-reference');
    const expected = (await readAll(referenceOutput, 'read_committed', servers))
      .map((r) => r.value)
      .filter((line) => !(line.startsWith('W') && line.split(':')[1] === String(SENTINEL_WINDOW)));
    const kinds = (prefix: RegExp) => expected.filter((line) => prefix.test(line)).length;
    assert.equal(kinds(/^k/), RECORDS + KEYS, 'a count line per record');
    assert.ok(kinds(/^W/) > 0 && kinds(/^P/) > 0 && kinds(/^T/) > 0, 'windows, matches and timeouts');

    const random = new SeededRandom(seed);
    const plan = schedule(random, expected.length);
    process.stdout.write(
      `# schedule over ${expected.length} output records: ` +
        plan.map((e) => `${e.kind}@${e.at}`).join(' ') +
        '\n',
    );

    const tail = await OutputTail.open(output, PARTITIONS, servers, WAIT_MS);
    tails.push(tail);
    let started = 0;
    const startProcess = (): Member =>
      processes.start(`p${++started}`, [jobFile, servers, jobId, input, output]);
    for (let i = 0; i < PROCESSES; i++) startProcess();
    const first = processes.members[0]!;
    await first.waitFor('the job to say its tasks', () => first.loggedAt(/joining job/) !== undefined);
    const allTasks = /\(\d+ tasks: (.*)\)/
      .exec(first.lines.find((l) => /joining job/.test(l.text))!.text)![1]!
      .split(', ')
      .sort();
    assert.equal(allTasks.length, 8, 'a source sub-topology and 3 keyed ones, 2 tasks each');
    /** Every task runs in exactly one running process. */
    const covered = (): boolean => {
      const running = processes.running.flatMap((m) => m.tasks).sort();
      return running.join() === allTasks.join();
    };

    const pauses: { kind: string; ms: number }[] = [];
    const outage = { downAt: 0, upAt: 0, recordsAtDown: 0, recordsAtUp: 0, backMs: 0 };
    const begun = performance.now();
    const note = (text: string): void => {
      process.stdout.write(`# ${((performance.now() - begun) / 1000).toFixed(1)} s: ${text}\n`);
    };
    // The input, slice by slice, as the job gets through it (then the sentinels).
    let counted = 0;
    let count = 0;
    const countLines = (): number => {
      for (; counted < tail.records.length; counted++)
        if (tail.records[counted]!.value.startsWith('k')) count++;
      return count;
    };
    const slice = RECORDS / SLICES;
    /** What writing the input does now, for a failure message. */
    let feedingNow = 'starting';
    const feeding = (async () => {
      for (let i = 0; i <= SLICES; i++) {
        if (i >= 2) {
          feedingNow = `waiting for the count lines of slices 0-${i - 2} to write slice ${i}`;
          await tail.waitUntil(
            `the count lines of input slices 0-${i - 2}`,
            () => countLines() >= (i - 1) * slice,
          );
        }
        feedingNow = `writing slice ${i} (since ${((performance.now() - begun) / 1000).toFixed(1)} s)`;
        await produce(input, i < SLICES ? records.slice(i * slice, (i + 1) * slice) : sentinels, servers);
      }
      feedingNow = 'done';
    })();
    // Awaited after the schedule; a failure meanwhile fails the waits at once.
    tail.dependsOn('writing the input', feeding);
    let back: Promise<number> | undefined;
    for (const step of plan) {
      await tail.waitForCount(step.at, `${step.kind} at ${step.at}`).catch(async (error: Error) => {
        throw new Error(
          `seed ${seed}: ${error.message}; the input: ${feedingNow}, ${countLines()} count lines seen; ` +
            `the processes:\n${processes.summary()}\n` +
            `${await unavailablePartitions(cluster)}\n` +
            `the output topic holds ${await readAll(output, 'read_committed', servers).then(
              (all) => `${all.length} committed records`,
              (e: Error) => `records that could not be read: ${e.message}`,
            )}`,
        );
      });
      const at = performance.now();
      note(`${step.kind} at ${tail.records.length} output records`);
      // A process that runs tasks: one still starting has nothing to lose (and no SIGTERM handler yet).
      const withTasks = async (): Promise<Member> => {
        await first.waitFor(`a running process with tasks (${step.kind} at ${step.at})`, () =>
          processes.running.some((m) => m.tasks.length > 0),
        );
        const candidates = processes.running.filter((m) => m.tasks.length > 0);
        return candidates[step.pick % candidates.length]!;
      };
      if (step.kind === 'kill') {
        const victim = await withTasks();
        victim.process.kill('SIGKILL');
        await victim.exited;
        startProcess();
        processes.watch(covered, () => pauses.push({ kind: 'kill', ms: performance.now() - at }));
      } else if (step.kind === 'join') {
        startProcess();
        processes.watch(covered, () => pauses.push({ kind: 'join', ms: performance.now() - at }));
      } else if (step.kind === 'leave') {
        const leaving = await withTasks();
        leaving.process.kill('SIGTERM');
        assert.equal(
          await leaving.exitCode('it was asked to leave'),
          0,
          `${leaving.name} leaves cleanly; log:\n${leaving.log()}`,
        );
        processes.watch(covered, () => pauses.push({ kind: 'leave', ms: performance.now() - at }));
      } else if (step.kind === 'broker-down') {
        await cluster.kill(step.pick + 1);
        outage.downAt = at;
        outage.recordsAtDown = tail.records.length;
      } else {
        // The output grew by a tenth of the run with the broker down: the job continued without it.
        outage.upAt = at;
        outage.recordsAtUp = tail.records.length;
        back = cluster.up(step.pick + 1);
        back.catch(() => {});
      }
    }
    note('every event done');
    await feeding;
    outage.backMs = await back!;
    note(`broker back`);
    await tail.waitForCount(expected.length, 'the whole output').catch((error: Error) => {
      const got = new Set(tail.records.map((r) => r.value));
      const missing = expected.filter((line) => !got.has(line));
      throw new Error(
        `seed ${seed}: ${error.message}; missing: ${missing.slice(0, 20).join(' ')}\n${processes.logs()}`,
      );
    });
    // SIGTERM makes a process hand its tasks back once it has joined (before, it just dies): the replacement of the
    // last kill may still be joining.
    await first.waitFor('every running process to run tasks', () =>
      processes.running.every((m) => m.tasks.length > 0),
    );
    note('the whole output seen; stopping');
    for (const m of processes.running) m.process.kill('SIGTERM');
    for (const m of processes.members) {
      const code = await m.exited;
      assert.ok(
        code === 0 || m.process.signalCode === 'SIGKILL',
        `${m.name} exits cleanly; log:\n${m.log()}`,
      );
    }
    await tail.close();
    note('stopped');

    const seen = (await readAll(output, 'read_committed', servers)).map((r) => r.value);
    assert.equal(seen.length, expected.length, `seed ${seed}: no loss, no duplicate`);
    assert.deepEqual(byKey(seen), byKey(expected), `seed ${seed}: each operator's lines per key, in order`);
    assert.equal(processes.members.filter((m) => m.process.signalCode === 'SIGKILL').length, KILLS);

    // Every topic of the job, and the transaction state and offsets, has 3 replicas.
    const topics = await cluster.topics();
    const ofJob = [...topics.keys()].filter(
      (t) => t.startsWith(jobId) || t === input || t === output || t.startsWith('__'),
    );
    assert.ok(ofJob.includes(`${jobId}-tasks`) && ofJob.includes('__transaction_state'), ofJob.join());
    assert.equal(ofJob.filter((t) => t.endsWith('-changelog')).length, 3, ofJob.join());
    assert.equal(ofJob.filter((t) => t.endsWith('-repartition')).length, 3, ofJob.join());
    for (const topic of ofJob)
      for (const p of topics.get(topic)!)
        assert.equal(p.replicas.length, 3, `${topic}-${p.id} has 3 replicas: ${JSON.stringify(p)}`);

    const gaps = (from: number, to: number): number => {
      const times = tail.records.map((r) => r.at).filter((t) => t >= from && t <= to);
      let longest = 0;
      for (let i = 1; i < times.length; i++) longest = Math.max(longest, times[i]! - times[i - 1]!);
      return longest;
    };
    const ms = (kind: string) =>
      pauses
        .filter((p) => p.kind === kind)
        .map((p) => Math.round(p.ms))
        .sort((a, b) => a - b);
    process.stdout.write(
      `# chaos seed ${seed}: to every task running again after a kill (ms, sorted): ${ms('kill').join(' ')}; ` +
        `after the join: ${ms('join').join(' ')}; after the leave: ${ms('leave').join(' ')}\n` +
        `# broker ${plan.find((e) => e.kind === 'broker-down')!.pick + 1} down for ` +
        `${Math.round(outage.upAt - outage.downAt)} ms (${outage.recordsAtUp - outage.recordsAtDown} output records ` +
        `meanwhile), back up in ${Math.round(outage.backMs)} ms; longest output gap while it was down: ` +
        `${Math.round(gaps(outage.downAt, outage.upAt))} ms, over the whole run: ${Math.round(gaps(0, Infinity))} ms\n`,
    );
  });
});
