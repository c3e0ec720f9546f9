// The placement of standby replicas: the members after each task's owner, by member id, computed alike by every member.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { standbyTasks, type GroupMember } from './standby-placement.ts';

describe('standbyTasks', () => {
  const two: GroupMember[] = [
    { memberId: 'b-2', tasks: [2, 3] },
    { memberId: 'a-1', tasks: [0, 1] },
  ];

  it("keeps the tasks of the member before it, by member id, whatever the description's order", () => {
    assert.deepEqual(standbyTasks(two, 'a-1', 1), [2, 3]);
    assert.deepEqual(standbyTasks(two, 'b-2', 1), [0, 1]);
    const three: GroupMember[] = [
      { memberId: 'c', tasks: [4, 5] },
      { memberId: 'a', tasks: [0, 1] },
      { memberId: 'b', tasks: [2, 3] },
    ];
    assert.deepEqual(standbyTasks(three, 'a', 1), [4, 5]);
    assert.deepEqual(standbyTasks(three, 'b', 1), [0, 1]);
    assert.deepEqual(standbyTasks(three, 'c', 1), [2, 3]);
    assert.deepEqual(standbyTasks(three, 'b', 2), [0, 1, 4, 5]);
  });

  it('never places more standbys of a task than there are other members, nor on its owner', () => {
    assert.deepEqual(standbyTasks(two, 'a-1', 5), [2, 3]);
    assert.deepEqual(standbyTasks([{ memberId: 'a', tasks: [0, 1] }], 'a', 1), []);
    // Between the rounds of a cooperative rebalance a task may show under two members: the owner keeps none.
    assert.deepEqual(
      standbyTasks(
        [
          { memberId: 'a', tasks: [0, 1] },
          { memberId: 'b', tasks: [1, 2] },
        ],
        'b',
        1,
      ),
      [0],
    );
  });

  it('places nothing without replicas, and nothing on a member the description does not hold', () => {
    assert.deepEqual(standbyTasks(two, 'a-1', 0), []);
    assert.deepEqual(standbyTasks(two, 'z', 1), []);
    assert.deepEqual(standbyTasks([], 'a', 1), []);
  });

  it('gives every owned task min(replicas, members - 1) standbys on distinct members other than its owner', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 7 }),
        fc.array(fc.nat(), { minLength: 20, maxLength: 20 }),
        (count, tasks, replicas, owners) => {
          const members: GroupMember[] = Array.from({ length: count }, (_, i) => ({
            memberId: `m${(i * 7919) % 101}-${i}`,
            tasks: Array.from({ length: tasks }, (_, t) => t).filter((t) => owners[t]! % count === i),
          }));
          const holders = new Map<number, string[]>();
          for (const m of members)
            for (const t of standbyTasks(members, m.memberId, replicas)) {
              const list = holders.get(t) ?? [];
              list.push(m.memberId);
              holders.set(t, list);
            }
          for (let t = 0; t < tasks; t++) {
            const owner = members.find((m) => m.tasks.includes(t))!.memberId;
            const on = holders.get(t) ?? [];
            assert.equal(on.length, Math.min(replicas, count - 1), `task ${t}`);
            assert.equal(new Set(on).size, on.length);
            assert.ok(!on.includes(owner));
          }
        },
      ),
    );
  });
});
