// Cluster mode against the real broker: one job as 2 processes sharing its 12 tasks, exactly once, with its keyed state and timers, through a SIGKILL.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/index.ts';
import { ConfigurationError } from '../../src/core/errors.ts';
import { call, kafkaClient, type ClientMetadata } from '../../src/connectors/kafka/kafka-client.ts';
import { DeliveryGuarantee, KafkaSink } from '../../src/connectors/kafka/index.ts';
import { JobProcesses, OutputTail, type Member } from './cluster-processes.ts';
import { buildClusterTestJob, MS_PER_ID, WINDOW_MS, type ClusterTestEvent } from './cluster-job.ts';
import { bootstrapServers, createTopic, produce, readAll, uniqueTopic } from './kafka-test-cluster.ts';

const jobFile = fileURLToPath(new URL('./cluster-job.ts', import.meta.url));
const cliJobFile = fileURLToPath(new URL('./cli-cluster-job.ts', import.meta.url));
const cli = fileURLToPath(new URL('../../src/cli/weir-cli.ts', import.meta.url));
const KEYS = 13;
const PARTITIONS = 4;
/** The tasks with keyed state: the running count's (sub-topology 1) and the window's (2). */
const KEYED_TASKS = ['1_0', '1_1', '1_2', '1_3', '2_0', '2_1', '2_2', '2_3'];
/** Every wait fails after this long, naming what it waited for. */
const WAIT_MS = 40_000;

/** Input records `first .. first + count - 1`; a key's records all go to one partition, in id order. */
function events(first: number, count: number): { partition: number; value: string }[] {
  return Array.from({ length: count }, (_, i) => {
    const id = first + i;
    const key = `k${id % KEYS}`;
    const event: ClusterTestEvent = { id, key };
    return { partition: (id % KEYS) % PARTITIONS, value: JSON.stringify(event) };
  });
}

/**
 * One record per key, far ahead in event time: in every input partition the watermark passes every window of the
 * events before it. Their own window (index {@link SENTINEL_WINDOW}) never fires in the cluster (nothing comes
 * after it), so it is left out of the comparison.
 */
const SENTINEL_ID = 10_010;
const SENTINEL_WINDOW = Math.floor((SENTINEL_ID * MS_PER_ID) / WINDOW_MS);
function sentinels(): { partition: number; value: string }[] {
  return events(SENTINEL_ID, KEYS);
}

/** The number of output records for input ids `[0, count)` and the sentinels: a count line each, and a window line per key and window. */
function outputCount(count: number): number {
  const windows = new Set<string>();
  for (let id = 0; id < count; id++) windows.add(`${id % KEYS}:${Math.floor((id * MS_PER_ID) / WINDOW_MS)}`);
  return count + KEYS + windows.size;
}

/** The output of the ordinary engine in one process over everything the input topic holds: the reference. */
async function referenceRun(input: string): Promise<string[]> {
  const output = uniqueTopic('cluster-reference');
  await createTopic(output, PARTITIONS);
  const env = StreamExecutionEnvironment.create({ parallelism: 4, metrics: false });
  buildClusterTestJob(env, { bootstrapServers: bootstrapServers(), input, output, bounded: true });
  await env.execute('cluster-reference');
  // The final watermark fires the sentinels' window too, which the cluster, never at its end, does not.
  return (await readAll(output))
    .map((r) => r.value)
    .filter((line) => !(line.startsWith('W') && line.split(':')[1] === String(SENTINEL_WINDOW)));
}

/** The records of each key in the order they were written: what a keyed consumer sees, and what must match. */
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

/** How each task of a process restored at its (last) start, from its log. */
function restores(
  member: Member,
): Map<string, { from: 'local' | 'full'; messages: number; ms: number; reason: string | undefined }> {
  const out = new Map<
    string,
    { from: 'local' | 'full'; messages: number; ms: number; reason: string | undefined }
  >();
  for (const { text } of member.lines) {
    const m =
      /task (\d+_\d+) restored (its local store and )?\d+ key group snapshots from (\d+) changelog messages \(\d+ bytes(?:, after its checkpoint|, in full: its checkpoint was not used, ([^)]*))?\) in (\d+) ms/.exec(
        text,
      );
    if (m === null) continue;
    out.set(m[1]!, {
      from: m[2] === undefined ? 'full' : 'local',
      messages: Number(m[3]),
      reason: m[4],
      ms: Number(m[5]),
    });
  }
  return out;
}

/** The changelog messages each task of a process wrote, from its log when it stopped. */
function written(member: Member): Map<string, number> {
  const out = new Map<string, number>();
  for (const { text } of member.lines) {
    const m = /task (\d+_\d+) changelog: (\d+) messages/.exec(text);
    if (m !== null) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

const processes = new JobProcesses(WAIT_MS);
/** Every tail opened: one a failed test left open would keep the test process alive after the suite. */
const tails: OutputTail[] = [];
after(async () => {
  processes.killAll();
  for (const tail of tails) await tail.close();
});

/** A read_committed tail of the output topic, closed after the suite. */
async function openTail(output: string): Promise<OutputTail> {
  const tail = await OutputTail.open(output, PARTITIONS, bootstrapServers(), WAIT_MS);
  tails.push(tail);
  return tail;
}

function start(
  name: string,
  jobId: string,
  input: string,
  output: string,
  slowMs = 0,
  lmdbPath?: string,
  fault?: 'crash-on-store-write' | `standbys=${number}`,
): Member {
  return processes.start(name, [
    jobFile,
    bootstrapServers(),
    jobId,
    input,
    output,
    String(slowMs),
    ...(lmdbPath === undefined ? [] : [lmdbPath]),
    ...(fault === undefined ? [] : [fault]),
  ]);
}

/** A process of the cluster started as `weir run --cluster <bootstrap> --job-id <id> <job file> ...`. */
function startWithCli(name: string, jobId: string, input: string, output: string): Member {
  return processes.start(name, [
    cli,
    'run',
    '--cluster',
    bootstrapServers(),
    '--job-id',
    jobId,
    cliJobFile,
    bootstrapServers(),
    input,
    output,
  ]);
}

/**
 * Waits until the output holds `count` records; when it does not come, the error names the records of the
 * single-process run still missing (a count that restarted, a window that never fired) and each process's log.
 */
async function waitForOutput(tail: OutputTail, input: string, count: number): Promise<void> {
  await tail.waitForCount(count).catch(async (error: Error) => {
    const got = new Set(tail.records.map((r) => r.value));
    const missing = (await referenceRun(input)).filter((line) => !got.has(line));
    throw new Error(`${error.message}; missing: ${missing.slice(0, 20).join(' ')}\n` + processes.logs());
  });
}

/**
 * Asserts that the output topic holds exactly what a single-process run over the whole input writes: no loss, no
 * duplicate, and each key's records in the same order. Returns that reference.
 */
async function assertSingleProcessOutput(input: string, output: string): Promise<string[]> {
  const seen = (await readAll(output)).map((r) => r.value);
  const expected = await referenceRun(input);
  assert.equal(seen.length, expected.length, 'no loss, no duplicate');
  assert.deepEqual(byKey(seen), byKey(expected));
  return expected;
}

/** Initialises `transactionalId` as a producer of its own: the producer that held it is fenced. */
async function fence(transactionalId: string): Promise<void> {
  const { Producer } = kafkaClient();
  const producer = new Producer({
    'bootstrap.servers': bootstrapServers(),
    'transactional.id': transactionalId,
  });
  await call<ClientMetadata>('connecting the fencing producer', (cb) =>
    producer.connect({ timeout: 30_000 }, cb),
  );
  try {
    await call('fencing ' + transactionalId, (cb) => producer.initTransactions(30_000, cb));
  } finally {
    await call('disconnecting the fencing producer', (cb) => producer.disconnect(10_000, cb));
  }
}

/** Resolves once `check()` holds, looking every 20 ms; fails after {@link WAIT_MS} naming `what`. */
async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = performance.now() + WAIT_MS;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`waited ${WAIT_MS} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** SIGTERM: the process hands its tasks back, leaves the group and exits 0. */
async function stopGracefully(member: Member): Promise<void> {
  member.process.kill('SIGTERM');
  const code = await member.exited;
  // The end of the log first: a CI excerpt may keep only the start of a failure message.
  assert.equal(
    code,
    0,
    `${member.name} exits cleanly, not with ${code ?? member.process.signalCode}; its last lines:\n` +
      member.lines
        .slice(-15)
        .map((l) => `  ${l.text}`)
        .join('\n') +
      `\nwhole log:\n${member.log()}`,
  );
}

/** A new input and output topic of {@link PARTITIONS} partitions each, and a new job id starting with `job`. */
async function freshTopics(job: string): Promise<{ input: string; output: string; jobId: string }> {
  const input = uniqueTopic('cluster-in');
  const output = uniqueTopic('cluster-out');
  await createTopic(input, PARTITIONS);
  await createTopic(output, PARTITIONS);
  return { input, output, jobId: uniqueTopic(job) };
}

describe('cluster mode: one job as several processes on Kafka', () => {
  it('two processes split the 12 tasks and write exactly the output of a single-process run', async () => {
    const { input, output, jobId } = await freshTopics('cluster-job');
    await produce(input, [...events(0, 3_000), ...sentinels()]);
    const expected = await referenceRun(input);
    assert.equal(expected.length, outputCount(3_000));

    const tail = await openTail(output);
    const a = start('a', jobId, input, output);
    const b = start('b', jobId, input, output);
    const all = [0, 1, 2].flatMap((sub) => [0, 1, 2, 3].map((p) => `${sub}_${p}`));
    const split = () => [...a.tasks, ...b.tasks].sort().join() === all.join() && a.tasks.length === 6;
    await a.waitFor('the tasks split 6/6', split);
    await tail.waitForCount(expected.length);
    await stopGracefully(a);
    await stopGracefully(b);
    await tail.close();

    const seen = (await readAll(output)).map((r) => r.value);
    assert.equal(seen.length, expected.length, 'no loss, no duplicate');
    assert.deepEqual(byKey(seen), byKey(expected));
    assert.ok(a.tasks.length === 0 && b.tasks.length === 0, 'every task stopped on SIGTERM');
  });

  it('`weir run --cluster --job-id` runs one job file as two processes, with the output of a single-process run', async () => {
    const { input, output, jobId } = await freshTopics('cluster-cli-job');
    await produce(input, [...events(0, 1_000), ...sentinels()]);
    const expected = await referenceRun(input);
    assert.equal(expected.length, outputCount(1_000));

    const tail = await openTail(output);
    const a = startWithCli('a', jobId, input, output);
    const b = startWithCli('b', jobId, input, output);
    await a.waitFor('the tasks split 6/6', () => a.tasks.length === 6 && b.tasks.length === 6);
    await tail.waitForCount(expected.length);
    await stopGracefully(a);
    await stopGracefully(b);
    await tail.close();

    const seen = (await readAll(output)).map((r) => r.value);
    assert.equal(seen.length, expected.length, 'no loss, no duplicate');
    assert.deepEqual(byKey(seen), byKey(expected));
    for (const m of [a, b]) {
      assert.ok(
        m.loggedAt(new RegExp(`Job 'cluster-test' runs as a process of cluster job '${jobId}' on `)) !==
          undefined,
        m.log(),
      );
      assert.ok(
        m.loggedAt(new RegExp(`Job 'cluster-test' left cluster job '${jobId}'`)) !== undefined,
        m.log(),
      );
    }
  });

  it('a SIGKILLed process loses its tasks to the survivor, which restores their state and timers: no loss, no duplicate, counts and windows continue', async () => {
    const { input, output, jobId } = await freshTopics('cluster-job');
    const tail = await openTail(output);

    // One process alone owns every task and works on the first 1,000: no window closes yet (event time
    // reaches 9,990 ms of the first 10 s window).
    await produce(input, events(0, 1_000));
    const a = start('a', jobId, input, output, 1);
    await a.waitFor('a owning all 12 tasks', () => a.tasks.length === 12);
    await tail.waitForCount(1_000);

    // A second one joins: half the tasks move to it, with their counts and the first window's contents and timers.
    const b = start('b', jobId, input, output, 1);
    await b.waitFor('b owning 6 tasks', () => b.tasks.length === 6 && a.tasks.length === 6);
    const joined = b.loggedAt(/joining job/)!;
    const joinPause = performance.now() - joined;
    const movedAtJoin = b.tasks;

    // Both work on the next 3,000 (1 ms a record in the first map); a is killed mid-way, inside the second window.
    await produce(input, [...events(1_000, 3_000), ...sentinels()]);
    await tail.waitForCount(1_600);
    const killed = a.tasks;
    const killAt = performance.now();
    a.process.kill('SIGKILL');
    await a.exited;
    await b.waitFor('b owning all 12 tasks', () => b.tasks.length === 12);
    const takeover = performance.now() - killAt;
    assert.equal(killed.length, 6);
    await waitForOutput(tail, input, outputCount(4_000));
    await stopGracefully(b);
    await tail.close();

    const expected = await assertSingleProcessOutput(input, output);
    assert.equal(expected.length, outputCount(4_000));
    const restores = b.lines
      .filter((l) => /restored \d+ key group snapshots|changelog: \d+ messages/.test(l.text))
      .map((l) => l.text);
    process.stdout.write(
      `# cluster mode: a join, from 'joining' to 6/6: ${Math.round(joinPause)} ms (moved: ${movedAtJoin.join(' ')}); ` +
        `a SIGKILL, to the survivor running all 12 tasks: ${Math.round(takeover)} ms (moved: ${killed.join(' ')})\n` +
        restores.map((r) => `# ${r.replace(/^.*?(task )/, '$1')}\n`).join(''),
    );
  });

  it('a task whose producer a new owner fences stops without a commit and starts again from its last commit: the process goes on, the output is exactly once', async () => {
    const { input, output, jobId } = await freshTopics('cluster-fence-job');
    const tail = await openTail(output);
    await produce(input, events(0, 1_000));
    const a = start('a', jobId, input, output, 1);
    await a.waitFor('a owning all 12 tasks', () => a.tasks.length === 12);
    await tail.waitForCount(300);
    // What a task's next owner does first: initialise the task's transactional id, which bumps its epoch and
    // aborts its open transaction. A source task, a count task and a window task are fenced while they work.
    const fenced = ['0_1', '1_2', '2_3'];
    for (const task of fenced) await fence(`${jobId}-task-${task}`);
    await produce(input, [...events(1_000, 1_000), ...sentinels()]);
    for (const task of fenced)
      await a.waitFor(
        `task ${task} started again`,
        () =>
          a.lines.some((l) => new RegExp(`task ${task} restarting`).test(l.text)) &&
          a.lines.filter((l) => new RegExp(`task ${task} started`).test(l.text)).length === 2,
      );
    await tail.waitForCount(outputCount(2_000));
    await stopGracefully(a);
    await tail.close();
    for (const task of fenced)
      assert.match(
        a.log(),
        new RegExp(
          `task ${task} failed \\(.*(fenced|Fatal|Purged|not delivered).*\\); stopping it without a commit`,
          'i',
        ),
      );
    assert.equal(a.tasks.length, 0);
    process.stdout.write(
      a.lines
        .filter((l) => / failed \(| restarting/.test(l.text))
        .map((l) => `# ${l.text.replace(/^.*?(task )/, '$1').slice(0, 220)}\n`)
        .join(''),
    );
    await assertSingleProcessOutput(input, output);
  });

  it("keeps each keyed task's state in the environment's backend (LMDB), a store per task, restored from the changelog after a move to another process", async () => {
    const { input, output, jobId } = await freshTopics('cluster-lmdb-job');
    const tail = await openTail(output);
    const stores = mkdtempSync(join(tmpdir(), 'weir-cluster-lmdb-'));
    try {
      await produce(input, events(0, 1_000));
      const a = start('a', jobId, input, output, 0, join(stores, 'a'));
      await a.waitFor('a owning all 12 tasks', () => a.tasks.length === 12);
      await tail.waitForCount(1_000);
      // The job's kept stores: a directory per keyed task, with one database per keyed operator, the timers and
      // input state beside it, and the checkpoint of the changelog offsets they reflect; the process's lock.
      assert.deepEqual(readdirSync(join(stores, 'a')), ['cluster']);
      const kept = join(stores, 'a', 'cluster', jobId);
      assert.deepEqual(readdirSync(kept).sort(), [...KEYED_TASKS, 'LOCK']);
      // A task writes its checkpoint once the delivery reports of the commit that made the output visible came:
      // just after the output, not with it.
      await until('a checkpoint in every keyed task directory', () =>
        KEYED_TASKS.every((task) => existsSync(join(kept, task, '.checkpoint'))),
      );
      // Besides the checkpoint (which a store write removes until the next commit's, so it comes and goes while
      // timers fire), the stores.
      for (const task of KEYED_TASKS)
        assert.deepEqual(
          readdirSync(join(kept, task))
            .filter((file) => file !== '.checkpoint')
            .sort(),
          ['changelog', task.startsWith('1_') ? 'count' : 'window'],
        );
      await stopGracefully(a);
      // A second process takes every task over: the counts and window contents come back into its own stores.
      await produce(input, [...events(1_000, 1_000), ...sentinels()]);
      const b = start('b', jobId, input, output, 0, join(stores, 'b'));
      await tail.waitForCount(outputCount(2_000));
      await stopGracefully(b);
      await tail.close();
      await assertSingleProcessOutput(input, output);
    } finally {
      rmSync(stores, { recursive: true, force: true });
    }
  });

  it('a process restarted on its directory restores each task from its local store and checkpoint, reading only the changelog written since (exactly what the other process wrote); a corrupt or missing checkpoint restores in full', async () => {
    const { input, output, jobId } = await freshTopics('cluster-local-job');
    const tail = await openTail(output);
    const stores = mkdtempSync(join(tmpdir(), 'weir-cluster-local-'));
    try {
      await produce(input, events(0, 1_000));
      const a = start('a', jobId, input, output, 0, join(stores, 'a'));
      await a.waitFor('a owning all 12 tasks', () => a.tasks.length === 12);
      await tail.waitForCount(1_000);
      await stopGracefully(a);
      for (const [task, r] of restores(a))
        assert.deepEqual(
          [task, r.from, r.reason],
          [task, 'full', 'there is none'],
          'a new store restores in full',
        );

      // Another process, with stores of its own, runs every task over the next 1,000 records.
      await produce(input, events(1_000, 1_000));
      const b = start('b', jobId, input, output, 0, join(stores, 'b'));
      await tail.waitForCount(2_000);
      await stopGracefully(b);
      const wroteByB = written(b);
      const readByB = restores(b);
      assert.ok(
        [...wroteByB.values()].reduce((x, y) => x + y, 0) > 0,
        `b wrote to the changelogs; log:\n${b.log()}`,
      );

      // The first comes back on its directory: one checkpoint corrupt, one gone.
      const kept = join(stores, 'a', 'cluster', jobId);
      writeFileSync(join(kept, '1_0', '.checkpoint'), '{"version":1,"offs');
      rmSync(join(kept, '2_1', '.checkpoint'));
      await produce(input, [...events(2_000, 1_000), ...sentinels()]);
      const again = start('a-again', jobId, input, output, 0, join(stores, 'a'));
      await tail.waitForCount(outputCount(3_000));
      await stopGracefully(again);
      await tail.close();

      const restored = restores(again);
      assert.deepEqual([...restored.keys()].sort(), KEYED_TASKS);
      for (const task of KEYED_TASKS) {
        const r = restored.get(task)!;
        if (task === '1_0' || task === '2_1') {
          assert.deepEqual(
            [r.from, r.reason],
            ['full', task === '1_0' ? 'it is not JSON' : 'there is none'],
            `${task} restores in full`,
          );
          // The whole partition: at least what b read in full and what b wrote.
          assert.ok(
            r.messages >= readByB.get(task)!.messages + (wroteByB.get(task) ?? 0),
            `${task}: ${r.messages}`,
          );
        } else
          assert.deepEqual(
            [task, r.from, r.messages],
            [task, 'local', wroteByB.get(task) ?? 0],
            'a local store reads exactly the changelog messages written after its checkpoint',
          );
      }
      await assertSingleProcessOutput(input, output);
      process.stdout.write(
        `# local stores: changelog messages read at restore, by task (full restore by b / from the checkpoint by a): ` +
          KEYED_TASKS.map(
            (t) =>
              `${t} ${readByB.get(t)!.messages}/${restored.get(t)!.messages} (${Math.round(readByB.get(t)!.ms)}/${Math.round(restored.get(t)!.ms)} ms)`,
          ).join(', ') +
          '\n',
      );
    } finally {
      rmSync(stores, { recursive: true, force: true });
    }
  });

  it("with standbyReplicas 1, the survivor of a SIGKILL takes the killed process's keyed tasks over from its standbys, reading only the changelog committed since their last catch-up: far fewer messages than the standbys read in all, and the output is exactly the single-process run's", async () => {
    const { input, output, jobId } = await freshTopics('cluster-standby-job');
    const tail = await openTail(output);
    const stores = mkdtempSync(join(tmpdir(), 'weir-cluster-standby-'));
    try {
      await produce(input, events(0, 1_000));
      const a = start('a', jobId, input, output, 1, join(stores, 'a'), 'standbys=1');
      await a.waitFor('a owning all 12 tasks', () => a.tasks.length === 12);
      await tail.waitForCount(1_000);
      const b = start('b', jobId, input, output, 1, join(stores, 'b'), 'standbys=1');
      await b.waitFor('b owning 6 tasks', () => b.tasks.length === 6 && a.tasks.length === 6);
      const keyedOf = (m: Member) => m.tasks.filter((t) => KEYED_TASKS.includes(t));
      const caughtUp = (holder: Member, owner: Member) => () =>
        keyedOf(owner).every((t) => holder.loggedAt(new RegExp(`standby ${t} caught up`)) !== undefined);
      // Each keeps a standby of every keyed task of the other (2 processes, 1 replica), caught up once.
      await b.waitFor("b's standbys of a's keyed tasks", caughtUp(b, a));
      await a.waitFor("a's standbys of b's keyed tasks", caughtUp(a, b));

      await produce(input, [...events(1_000, 3_000), ...sentinels()]);
      await tail.waitForCount(1_600);
      const killed = keyedOf(a);
      assert.ok(killed.length > 0, `a runs keyed tasks: ${a.tasks.join(' ')}`);
      const killAt = performance.now();
      a.process.kill('SIGKILL');
      await a.exited;
      await b.waitFor('b owning all 12 tasks', () => b.tasks.length === 12);
      const takeover = performance.now() - killAt;
      await waitForOutput(tail, input, outputCount(4_000));
      await stopGracefully(b);
      await tail.close();

      await assertSingleProcessOutput(input, output);

      // What b's standby of each killed task read over its life, from its line when the task took its store.
      const standbyRead = new Map<string, number>();
      for (const { text } of b.lines) {
        const m =
          /standby (\d+_\d+) stopped \(its task is assigned to this process\) after \d+ catch-ups reading (\d+) changelog messages/.exec(
            text,
          );
        if (m !== null) standbyRead.set(m[1]!, Number(m[2]));
      }
      const restored = restores(b);
      const figures: string[] = [];
      for (const task of killed) {
        const r = restored.get(task)!;
        const all = standbyRead.get(task);
        assert.ok(all !== undefined && all > 0, `${task}: its standby read the changelog; log:\n${b.log()}`);
        assert.deepEqual(
          [task, r.from],
          [task, 'local'],
          'the task starts on the standby store and its checkpoint',
        );
        assert.ok(r.messages * 10 <= all, `${task}: the tail (${r.messages}) is far less than all (${all})`);
        figures.push(`${task} ${r.messages} of ${all} (${r.ms} ms)`);
      }
      process.stdout.write(
        `# standby replicas: a SIGKILL, to the survivor running all 12 tasks: ${Math.round(takeover)} ms; ` +
          `changelog messages read at takeover, of those the standby read in all: ${figures.join(', ')}\n`,
      );
    } finally {
      rmSync(stores, { recursive: true, force: true });
    }
  });

  it('a process killed after writing its store and before the commit that covers it does not trust that store: it restores it in full, and the output is exactly once', async () => {
    const { input, output, jobId } = await freshTopics('cluster-crash-job');
    const tail = await openTail(output);
    const stores = mkdtempSync(join(tmpdir(), 'weir-cluster-crash-'));
    try {
      await produce(input, events(0, 1_000));
      const a = start('a', jobId, input, output, 1, join(stores, 'a'), 'crash-on-store-write');
      await a.waitFor('a owning all 12 tasks', () => a.tasks.length === 12);
      await tail.waitForCount(600);
      // From now on, the next write to a store kills the process before its commit returns; more input makes one.
      a.process.kill('SIGUSR2');
      await produce(input, events(1_000, 1_000));
      await a.waitFor('a killing itself', () => a.loggedAt(/CRASHING after a store write/) !== undefined);
      await a.exited;

      await produce(input, [...events(2_000, 1_000), ...sentinels()]);
      const again = start('a-again', jobId, input, output, 0, join(stores, 'a'));
      await tail.waitForCount(outputCount(3_000)).catch(async (error: Error) => {
        const got = new Set(tail.records.map((r) => r.value));
        const missing = (await referenceRun(input)).filter((line) => !got.has(line));
        throw new Error(`${error.message}; missing: ${missing.slice(0, 20).join(' ')}\n${again.log()}`);
      });
      await stopGracefully(again);
      await tail.close();

      await assertSingleProcessOutput(input, output);
      const restored = restores(again);
      const full = [...restored].filter(([, r]) => r.from === 'full');
      assert.ok(full.length >= 1, `the store written past its commit restores in full; log:\n${again.log()}`);
      for (const [task, r] of full) assert.equal(r.reason, 'there is none', task);
    } finally {
      rmSync(stores, { recursive: true, force: true });
    }
  });

  it('fails the task, naming the topic, partition and offset, when its changelog holds a record it cannot decode', async () => {
    const { input, output, jobId } = await freshTopics('cluster-job');
    // The changelog of the running count (uid 'count'), as the job creates it, with one record that is not a key
    // group's state at offset 0 of partition 2: task 1_2 reads it when it restores.
    const changelog = `${jobId}-count-changelog`;
    await createTopic(changelog, PARTITIONS);
    await produce(changelog, [{ partition: 2, key: Buffer.from([1, 0, 0, 5]), value: 'not a key group' }]);
    const a = start('a', jobId, input, output);
    const code = await a.exited;
    assert.notEqual(code, 0, `the process fails; log:\n${a.log()}`);
    assert.match(
      a.log(),
      new RegExp(
        `Changelog record ${changelog}-2@0 could not be decoded: the keyed state of key group 5: `.replace(
          /[.]/g,
          '\\.',
        ),
      ),
    );
  });

  it('refuses a source that is not a Kafka topic', async () => {
    const env = StreamExecutionEnvironment.create({
      cluster: { bootstrapServers: bootstrapServers(), jobId: uniqueTopic('cluster-job') },
    });
    env.fromElements(1, 2, 3).sinkTo(
      KafkaSink.builder<number>()
        .setBootstrapServers(bootstrapServers())
        .setTopic('unused')
        .setRecordSerializer((n) => ({ value: String(n) }))
        .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
        .build(),
    );
    await assert.rejects(
      env.execute('not-kafka'),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /^Cluster mode: source '.+' is not a KafkaSource; a job in cluster mode reads Kafka topics only$/.test(
          error.message,
        ),
    );
  });
});
