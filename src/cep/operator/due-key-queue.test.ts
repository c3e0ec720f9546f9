// DueKeyQueue: keys come out by due time, ties in the order their time was set, moved keys once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DueKeyQueue, type DueKey } from './due-key-queue.ts';

const key = (name: string): DueKey<string> => ({
  key: name,
  normalizedKey: name,
  queue: undefined,
  wakeAt: Number.POSITIVE_INFINITY,
  stamp: -1,
});

function takeAll(q: DueKeyQueue<string>, time: number): string[] {
  const out: string[] = [];
  for (let k = q.takeDue(time); k !== undefined; k = q.takeDue(time))
    out.push(`${k.key as string}@${k.wakeAt}`);
  return out;
}

describe('DueKeyQueue', () => {
  it('hands out keys due at or before a time by due time, equal times in the order they were set', () => {
    const q = new DueKeyQueue<string>();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(key) as [
      DueKey<string>,
      DueKey<string>,
      DueKey<string>,
      DueKey<string>,
    ];
    q.schedule(a, 7);
    q.schedule(b, 5);
    q.schedule(c, 7);
    q.schedule(d, 9);
    assert.deepEqual(takeAll(q, 6), ['b@5']);
    assert.deepEqual(takeAll(q, 8), ['a@7', 'c@7']);
    assert.deepEqual(takeAll(q, 8), []);
    assert.deepEqual(takeAll(q, 100), ['d@9']);
  });

  it('a key moved to another time comes out once, at the new time and in the new order', () => {
    const q = new DueKeyQueue<string>();
    const [a, b, c] = ['a', 'b', 'c'].map(key) as [DueKey<string>, DueKey<string>, DueKey<string>];
    q.schedule(a, 10);
    q.schedule(b, 10);
    q.schedule(c, 12);
    q.schedule(a, 4); // earlier
    q.schedule(c, 10); // same time as b, set after it
    assert.deepEqual(takeAll(q, 20), ['a@4', 'b@10', 'c@10']);
    // back to a time it left: only the live entry counts
    q.schedule(a, 30);
    q.schedule(b, 31);
    q.schedule(a, 32);
    q.schedule(a, 30);
    assert.deepEqual(takeAll(q, 40), ['a@30', 'b@31']);
  });

  it('an unscheduled key does not come out; a taken key is out of the queue until scheduled again', () => {
    const q = new DueKeyQueue<string>();
    const [a, b] = ['a', 'b'].map(key) as [DueKey<string>, DueKey<string>];
    q.schedule(a, 1);
    q.schedule(b, 2);
    q.unschedule(a);
    assert.equal(a.wakeAt, Number.POSITIVE_INFINITY);
    const taken = q.takeDue(5);
    assert.equal(taken, b);
    assert.equal(b.stamp, -1);
    assert.equal(b.wakeAt, 2);
    assert.equal(q.takeDue(5), undefined);
  });

  it('keys scheduled later than the time while taking are left for a later time', () => {
    const q = new DueKeyQueue<string>();
    const keys = ['a', 'b', 'c'].map(key);
    keys.forEach((k, i) => q.schedule(k, i));
    const order: string[] = [];
    for (let k = q.takeDue(5); k !== undefined; k = q.takeDue(5)) {
      order.push(k.key as string);
      q.schedule(k, 6 + order.length);
    }
    assert.deepEqual(order, ['a', 'b', 'c']);
    assert.deepEqual(takeAll(q, 100), ['a@7', 'b@8', 'c@9']);
  });

  it('keeps time order over many distinct times scheduled out of order', () => {
    const q = new DueKeyQueue<string>();
    const times = Array.from({ length: 200 }, (_, i) => (i * 7919) % 211);
    times.forEach((t, i) => q.schedule(key(`k${i}`), t));
    const out: number[] = [];
    for (let k = q.takeDue(1_000); k !== undefined; k = q.takeDue(1_000)) out.push(k.wakeAt);
    assert.deepEqual(
      out,
      [...times].sort((x, y) => x - y),
    );
  });
});
