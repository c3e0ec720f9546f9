// Group membership and task assignment against the real broker: splits, cooperative moves, a leave and a kill.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { after, afterEach, describe, it } from 'node:test';
import { ConfigurationError } from '../../src/core/errors.ts';
import { TaskMembership } from '../../src/connectors/kafka/task-membership.ts';
import { bootstrapServers, highWatermarks, uniqueTopic } from './kafka-test-cluster.ts';

const TASKS = 4;
/** The broker's minimum session timeout (group.min.session.timeout.ms), so the kill test is short. */
const SESSION_MS = 6_000;
const HEARTBEAT_MS = 500;
/** A wait for an assignment that has not happened by then has hung. */
const WAIT_MS = 30_000;
/**
 * How long onRevoked takes in the test of a slow revoke, as a task committing its work would: several heartbeat
 * intervals, so a task moved before onRevoked returned would be seen assigned elsewhere.
 */
const SLOW_REVOKE_MS = 2_500;
const child = fileURLToPath(new URL('./task-membership-child.ts', import.meta.url));

interface GroupEvent {
  readonly member: string;
  readonly kind: 'assigned' | 'revoking' | 'revoked';
  readonly tasks: readonly number[];
  readonly lost: boolean;
  /** performance.now() when it was recorded. */
  readonly at: number;
}

/** Every member's assignment events, in the order they were observed, and waits on them. */
class GroupLog {
  readonly events: GroupEvent[] = [];
  /** Failures the members reported (onError, or an ERROR line of the child). */
  readonly errors: string[] = [];
  private waiters: { check: () => boolean; resolve: (at: number) => void }[] = [];

  record(member: string, kind: GroupEvent['kind'], tasks: readonly number[], lost = false): void {
    this.events.push({ member, kind, tasks: [...tasks], lost, at: performance.now() });
    this.waiters = this.waiters.filter((w) => {
      if (!w.check()) return true;
      w.resolve(performance.now());
      return false;
    });
  }

  /** The tasks a member owns after the events so far. */
  owned(member: string): number[] {
    const tasks = new Set<number>();
    for (const e of this.events) {
      if (e.member !== member) continue;
      if (e.kind === 'assigned') e.tasks.forEach((t) => tasks.add(t));
      if (e.kind === 'revoked') e.tasks.forEach((t) => tasks.delete(t));
    }
    return [...tasks].sort((a, b) => a - b);
  }

  /** Whether `members` own every task exactly once, with these many tasks each (in any order). */
  split(members: readonly string[], sizes: readonly number[]): boolean {
    const owned = members.map((m) => this.owned(m));
    const all = owned.flat().sort((a, b) => a - b);
    return (
      JSON.stringify(all) === JSON.stringify([...Array(TASKS).keys()]) &&
      JSON.stringify(owned.map((o) => o.length).sort()) === JSON.stringify([...sizes].sort())
    );
  }

  /** Resolves with the time the condition first held (now, if it holds already); fails after WAIT_MS. */
  waitFor(what: string, check: () => boolean): Promise<number> {
    if (check()) return Promise.resolve(performance.now());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.check !== check);
        reject(new Error(`waited ${WAIT_MS} ms for ${what}; events: ${this.describe()}`));
      }, WAIT_MS);
      this.waiters.push({
        check,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      });
    });
  }

  /** The events since index `from`, as text: `A+0,1` assigned, `A-1` revoked (`A-1!` lost). */
  describe(from = 0): string {
    return this.events
      .slice(from)
      .filter((e) => e.kind !== 'revoking')
      .map((e) => `${e.member}${e.kind === 'assigned' ? '+' : '-'}${e.tasks.join(',')}${e.lost ? '!' : ''}`)
      .join(' ');
  }
}

/**
 * Checks that every task assigned after event `from` was first given up by its previous owner: that owner's
 * onRevoked had returned before the new owner's onAssigned was called.
 */
function assertRevokedBeforeMoved(log: GroupLog, from: number): void {
  const owner = new Map<number, string>();
  const events = log.events;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.kind === 'revoked') for (const t of e.tasks) owner.delete(t);
    if (e.kind !== 'assigned') continue;
    for (const t of e.tasks) {
      if (i >= from)
        assert.equal(
          owner.get(t),
          undefined,
          `task ${t} assigned to ${e.member} while ${owner.get(t)} still held it: ${log.describe()}`,
        );
      owner.set(t, e.member);
    }
  }
}

function join(log: GroupLog, member: string, jobId: string, revokeMs = 0): Promise<TaskMembership> {
  return TaskMembership.join({
    bootstrapServers: bootstrapServers(),
    jobId,
    taskCount: TASKS,
    sessionTimeoutMs: SESSION_MS,
    heartbeatIntervalMs: HEARTBEAT_MS,
    clientId: member,
    listener: {
      onAssigned: (tasks) => log.record(member, 'assigned', tasks),
      onRevoked: async (tasks, lost) => {
        log.record(member, 'revoking', tasks, lost);
        await delay(revokeMs);
        log.record(member, 'revoked', tasks, lost);
      },
    },
    onError: (error) => log.errors.push(`${member}: ${error.message}`),
  });
}

/** Starts a member in a child process; its printed events go into the log under `member`. */
function joinInChild(log: GroupLog, member: string, jobId: string): ChildProcess {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', child, bootstrapServers(), jobId, `${TASKS}`, `${SESSION_MS}`, `${HEARTBEAT_MS}`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let pending = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const [kind, tasks, lost] = line.split(' ');
      const list = (tasks ?? '').split(',').map(Number);
      if (kind === 'ASSIGNED') log.record(member, 'assigned', list);
      else if (kind === 'REVOKED') log.record(member, 'revoked', list, lost === 'true');
      else if (kind === 'ERROR') log.errors.push(`${member}: ${line}`);
    }
  });
  return proc;
}

const ms = (from: number, to: number): number => Math.round(to - from);

describe('TaskMembership against the real broker', () => {
  const jobId = uniqueTopic('membership-job');
  const log = new GroupLog();
  const members = new Map<string, TaskMembership>();
  let killed: ChildProcess | undefined;
  afterEach(() => assert.deepEqual(log.errors, []));
  after(async () => {
    killed?.kill('SIGKILL');
    await Promise.all([...members.values()].map((m) => m.close()));
  });

  it('creates the task topic, and two members split 4 tasks 2/2', async (t) => {
    const start = performance.now();
    const [a, b] = await Promise.all([join(log, 'A', jobId), join(log, 'B', jobId)]);
    members.set('A', a).set('B', b);
    const done = await log.waitFor('A and B to own 2 tasks each', () => log.split(['A', 'B'], [2, 2]));
    t.diagnostic(`pause: two members from join() to 2/2: ${ms(start, done)} ms`);
    assert.equal((await highWatermarks(`${jobId}-tasks`)).size, TASKS);
    assert.deepEqual(a.tasks, log.owned('A'));
    assert.deepEqual(b.tasks, log.owned('B'));
    assertRevokedBeforeMoved(log, 0);
  });

  it('a third member takes one task; only that task is revoked, the others keep running', async (t) => {
    const before = { A: log.owned('A'), B: log.owned('B') };
    const from = log.events.length;
    const start = performance.now();
    members.set('C', await join(log, 'C', jobId));
    const done = await log.waitFor('A, B and C to own 2, 1 and 1 tasks', () =>
      log.split(['A', 'B', 'C'], [2, 1, 1]),
    );
    t.diagnostic(`pause: a member joins, from join() to 2/1/1: ${ms(start, done)} ms`);
    const moved = log.owned('C');
    assert.equal(moved.length, 1);
    // Exactly the moved task was revoked, once, from the member that had it; nothing was lost.
    const revoked = log.events.slice(from).filter((e) => e.kind === 'revoked');
    const previousOwner = before.A.includes(moved[0]!) ? 'A' : 'B';
    assert.deepEqual(
      revoked.map((e) => `${e.member}-${e.tasks.join(',')}${e.lost ? '!' : ''}`),
      [`${previousOwner}-${moved[0]}`],
    );
    assert.deepEqual(
      log.owned(previousOwner),
      before[previousOwner].filter((task) => task !== moved[0]),
    );
    assertRevokedBeforeMoved(log, from);
  });

  it('a member that closes has its tasks revoked and moved to the others at once', async (t) => {
    const c = members.get('C')!;
    const tasksOfC = log.owned('C');
    const from = log.events.length;
    const start = performance.now();
    const closed = c.close();
    const done = await log.waitFor('A and B to own 2 tasks each after C left', () =>
      log.split(['A', 'B'], [2, 2]),
    );
    await closed;
    members.delete('C');
    t.diagnostic(`pause: a member closes, from close() to 2/2: ${ms(start, done)} ms`);
    assert.deepEqual(c.tasks, []);
    assert.deepEqual(
      log
        .describe(from)
        .split(' ')
        .filter((e) => !e.startsWith('A+') && !e.startsWith('B+')),
      [`C-${tasksOfC.join(',')}`],
    );
    // It left the group: the others did not wait for its session to time out.
    assert.ok(
      ms(start, done) < SESSION_MS,
      `took ${ms(start, done)} ms, the session timeout is ${SESSION_MS}`,
    );
    assertRevokedBeforeMoved(log, from);
  });

  it('a member killed without leaving loses its tasks after the session timeout', async (t) => {
    killed = joinInChild(log, 'D', jobId);
    await log.waitFor('the child member D to own 1 task (A and B 2 and 1)', () =>
      log.split(['A', 'B', 'D'], [2, 1, 1]),
    );
    const from = log.events.length;
    const survivors = { A: log.owned('A'), B: log.owned('B') };
    const tasksOfD = log.owned('D');
    killed.kill('SIGKILL');
    const start = performance.now();
    const done = await log.waitFor('A and B to own 2 tasks each after D was killed', () =>
      log.split(['A', 'B'], [2, 2]),
    );
    t.diagnostic(`pause: a member is killed, from SIGKILL to 2/2: ${ms(start, done)} ms`);
    // The group waited for D's session to expire: its last heartbeat was at most one interval before the kill.
    assert.ok(
      ms(start, done) >= SESSION_MS - 2 * HEARTBEAT_MS,
      `took ${ms(start, done)} ms, the session timeout is ${SESSION_MS}`,
    );
    // D's task went to a survivor; the survivors gave nothing up.
    assert.deepEqual(
      log
        .describe(from)
        .split(' ')
        .filter((e) => !e.startsWith('D'))
        .sort(),
      [`${log.owned('A').length > survivors.A.length ? 'A' : 'B'}+${tasksOfD.join(',')}`],
    );
  });

  it('moves a task only after its owner returned from onRevoked', async () => {
    const job = uniqueTopic('slow-revoke-job');
    const slow = new GroupLog();
    const a = await join(slow, 'A', job, SLOW_REVOKE_MS);
    members.set('slow A', a);
    await slow.waitFor('A to own all 4 tasks', () => slow.split(['A'], [4]));
    members.set('slow B', await join(slow, 'B', job));
    await slow.waitFor('A and B to own 2 tasks each', () => slow.split(['A', 'B'], [2, 2]));
    assert.deepEqual(slow.errors, []);
    const moved = slow.owned('B');
    const revoking = slow.events.find((e) => e.member === 'A' && e.kind === 'revoking')!;
    const revoked = slow.events.find((e) => e.member === 'A' && e.kind === 'revoked')!;
    const assigned = slow.events.find((e) => e.member === 'B' && e.kind === 'assigned')!;
    assert.deepEqual([revoking.tasks, revoked.tasks, assigned.tasks], [moved, moved, moved]);
    assert.ok(
      assigned.at >= revoked.at && revoked.at - revoking.at >= SLOW_REVOKE_MS - 50,
      `B was assigned ${moved} ${Math.round(assigned.at - revoking.at)} ms after A started revoking them, ` +
        `${Math.round(assigned.at - revoked.at)} ms after A finished (negative: before)`,
    );
    assertRevokedBeforeMoved(slow, 0);
  });

  it('refuses a task topic whose partition count is not the number of tasks', async () => {
    await assert.rejects(
      TaskMembership.join({
        bootstrapServers: bootstrapServers(),
        jobId,
        taskCount: TASKS + 1,
        listener: { onAssigned: () => {}, onRevoked: () => {} },
      }),
      (error: Error) =>
        error instanceof ConfigurationError &&
        error.message.startsWith(
          `Task topic '${jobId}-tasks' has 4 partitions, but job '${jobId}' has 5 tasks`,
        ),
    );
  });
});
