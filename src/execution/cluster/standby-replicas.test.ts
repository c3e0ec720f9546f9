// A process's standby replicas: placed from each description of the group, never beside their own task, released to it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskGroupView } from '../../connectors/kafka/task-membership.ts';
import type { ClusterTaskContext } from './cluster-task.ts';
import { StandbyReplicas, type Standby, type StandbyMembership } from './standby-replicas.ts';

/** Tasks 0_0, 0_1 (no keyed operator) and 1_0, 1_1, 1_2 (a keyed one): indexes 0 to 4. */
const topology = {
  tasks: ['0_0', '0_1', '1_0', '1_1', '1_2'],
  subTopologies: [
    { id: 0, nodes: [{ uid: 'source', transformation: { isKeyed: false } }], tasks: ['0_0', '0_1'] },
    {
      id: 1,
      nodes: [{ uid: 'count', maxParallelism: 128, transformation: { isKeyed: true } }],
      tasks: ['1_0', '1_1', '1_2'],
    },
  ],
};

class Group implements StandbyMembership {
  view: TaskGroupView = { stable: true, self: undefined, members: [] };
  readonly owned = new Set<number>();
  describe(): Promise<TaskGroupView> {
    return Promise.resolve(this.view);
  }
  inTurn(action: () => Promise<void>): Promise<void> {
    return action();
  }
  owns(task: number): boolean {
    return this.owned.has(task);
  }
}

function setup() {
  const events: string[] = [];
  const logs: string[] = [];
  const group = new Group();
  const context = {
    jobId: 'job',
    topology,
    commitIntervalMs: 100,
    logger: {
      info: (_: unknown, m: string) => logs.push(m),
      debug: (_: unknown, m: string) => logs.push(m),
      warn: (_: unknown, m: string) => logs.push(`warn: ${m}`),
    },
  } as unknown as ClusterTaskContext;
  const standby = (id: string): Standby => {
    events.push(`new ${id}`);
    const figures = { catchUps: 0, messages: 0, bytes: 0, ms: 0 };
    return {
      id,
      figures,
      catchUp: () => {
        events.push(`catch up ${id}`);
        figures.catchUps++;
        figures.messages += 2;
        return Promise.resolve({
          from: 'checkpoint',
          checkpointRejected: undefined,
          messages: 2,
          bytes: 20,
          ms: 1,
          checkpointed: true,
        });
      },
      stop: () => {
        events.push(`stop ${id}`);
        return Promise.resolve();
      },
    };
  };
  const replicas = new StandbyReplicas(1, context, undefined as never, group, standby);
  return { events, logs, group, replicas };
}

describe('StandbyReplicas', () => {
  it('keeps standbys of the keyed tasks of the member before it, and catches each up every round', async () => {
    const { events, group, replicas } = setup();
    group.view = {
      stable: true,
      self: 'b',
      members: [
        { memberId: 'b', tasks: [1, 4] },
        { memberId: 'a', tasks: [0, 2, 3] },
      ],
    };
    group.owned.add(1).add(4);
    await replicas.round();
    // a is before b (by member id); of a's tasks, 0 has no keyed operator.
    assert.deepEqual(replicas.tasks, [2, 3]);
    await replicas.round();
    assert.deepEqual(events, [
      'new 1_0',
      'new 1_1',
      'catch up 1_0',
      'catch up 1_1',
      'catch up 1_0',
      'catch up 1_1',
    ]);
  });

  it('changes nothing while the group rebalances, nor for a process the description does not hold', async () => {
    const { events, group, replicas } = setup();
    group.view = {
      stable: false,
      self: 'b',
      members: [
        { memberId: 'a', tasks: [2] },
        { memberId: 'b', tasks: [] },
      ],
    };
    await replicas.round();
    group.view = { stable: true, self: undefined, members: [{ memberId: 'a', tasks: [2] }] };
    await replicas.round();
    assert.deepEqual([replicas.tasks, events], [[], []]);
  });

  it('releases a standby to its task (stopped before the task starts), and never keeps one of a task it owns', async () => {
    const { events, logs, group, replicas } = setup();
    const twoMembers = (a: number[], b: number[]): TaskGroupView => ({
      stable: true,
      self: 'b',
      members: [
        { memberId: 'a', tasks: a },
        { memberId: 'b', tasks: b },
      ],
    });
    group.view = twoMembers([2, 3], [4]);
    group.owned.add(4);
    await replicas.round();
    assert.deepEqual(replicas.tasks, [2, 3]);

    // a dies: its tasks are assigned here. The description may still show a as their owner.
    await replicas.release([2, 3]);
    group.owned.add(2).add(3);
    assert.deepEqual(replicas.tasks, []);
    await replicas.round();
    assert.deepEqual(replicas.tasks, [], 'owned tasks get no standby');
    assert.deepEqual(events.slice(-2), ['stop 1_0', 'stop 1_1']);
    assert.ok(
      logs.includes(
        'standby 1_0 stopped (its task is assigned to this process) after 1 catch-ups reading 2 changelog messages (0 bytes) in 0 ms',
      ),
      logs.join('\n'),
    );

    // Another member joins and takes task 3; the placement moves 1_1's standby elsewhere, and 1_2 comes here.
    group.owned.delete(3);
    group.view = {
      stable: true,
      self: 'b',
      members: [
        { memberId: 'a2', tasks: [] },
        { memberId: 'b', tasks: [2, 4] },
        { memberId: 'c', tasks: [3] },
      ],
    };
    await replicas.round();
    assert.deepEqual(replicas.tasks, [], 'a2, before b, owns nothing');
    group.view = {
      stable: true,
      self: 'b',
      members: [
        { memberId: 'b', tasks: [2] },
        { memberId: 'c', tasks: [3, 4] },
      ],
    };
    group.owned.delete(4);
    await replicas.round();
    assert.deepEqual(replicas.tasks, [3, 4]);
    group.view = {
      stable: true,
      self: 'b',
      members: [
        { memberId: 'a', tasks: [4] },
        { memberId: 'b', tasks: [2] },
        { memberId: 'c', tasks: [3] },
      ],
    };
    await replicas.round();
    assert.deepEqual(replicas.tasks, [4], "1_1's standby moved to a (after c)");
    assert.ok(logs.some((l) => l.startsWith('standby 1_1 stopped (the placement moved it)')));
    await replicas.close();
    assert.deepEqual(replicas.tasks, []);
    assert.equal(events.at(-1), 'stop 1_2');
  });
});
