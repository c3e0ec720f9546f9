// DueKeyQueue: keys come out by due time, ties by stamp however they were scheduled, a moved key once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DueKeyQueue, type DueKey } from './due-key-queue.ts';

interface Named extends DueKey {
  readonly key: string;
}
const named = (...names: string[]): Named[] =>
  names.map((key) => ({ key, wakeAt: Number.POSITIVE_INFINITY, stamp: -1 }));

function takeAll(q: DueKeyQueue<Named>, time: number): string[] {
  const out: string[] = [];
  for (let k = q.takeDue(time); k !== undefined; k = q.takeDue(time)) out.push(`${k.key}@${k.wakeAt}`);
  return out;
}

describe('DueKeyQueue', () => {
  it('hands out keys due at or before a time by due time, equal times by stamp', () => {
    const q = new DueKeyQueue<Named>();
    const [a, b, c, d, e] = named('a', 'b', 'c', 'd', 'e') as [Named, Named, Named, Named, Named];
    q.schedule(a, 7, 3);
    q.schedule(b, 5, 4);
    q.schedule(c, 7, 1);
    q.schedule(d, 9, 5);
    q.schedule(e, 7, 2);
    assert.deepEqual(takeAll(q, 6), ['b@5']);
    assert.deepEqual(takeAll(q, 8), ['c@7', 'e@7', 'a@7']);
    assert.deepEqual(takeAll(q, 8), []);
    assert.deepEqual(takeAll(q, 100), ['d@9']);
  });

  it('a key moved to another time comes out once, at the new time', () => {
    const q = new DueKeyQueue<Named>();
    const [a, b, c] = named('a', 'b', 'c') as [Named, Named, Named];
    q.schedule(a, 10, 1);
    q.schedule(b, 10, 2);
    q.schedule(c, 12, 3);
    q.schedule(a, 4, 4); // earlier
    q.schedule(c, 10, 5); // same time as b, later stamp
    assert.deepEqual(takeAll(q, 20), ['a@4', 'b@10', 'c@10']);
  });

  it('a key taken and scheduled again under the stamp its stale entry has comes out once, in that place', () => {
    const q = new DueKeyQueue<Named>();
    const [a, b] = named('a', 'b') as [Named, Named];
    q.schedule(a, 10, 1);
    q.schedule(b, 10, 2);
    q.schedule(a, 4, 3);
    assert.equal(q.takeDue(4), a);
    q.schedule(a, 10, 1); // its registration at 10 kept its stamp: it goes before b again
    assert.deepEqual(takeAll(q, 10), ['a@10', 'b@10']);
  });

  it('an unscheduled key does not come out; a taken key is out of the queue until scheduled again', () => {
    const q = new DueKeyQueue<Named>();
    const [a, b] = named('a', 'b') as [Named, Named];
    q.schedule(a, 1, 1);
    q.schedule(b, 2, 2);
    q.unschedule(a);
    assert.equal(a.wakeAt, Number.POSITIVE_INFINITY);
    assert.equal(q.takeDue(5), b);
    assert.equal(b.stamp, -1);
    assert.equal(b.wakeAt, 2);
    assert.equal(q.takeDue(5), undefined);
  });

  it('keys scheduled later than the time while taking are left for a later time', () => {
    const q = new DueKeyQueue<Named>();
    const keys = named('a', 'b', 'c');
    keys.forEach((k, i) => q.schedule(k, i, i));
    const order: string[] = [];
    for (let k = q.takeDue(5); k !== undefined; k = q.takeDue(5)) {
      order.push(k.key);
      q.schedule(k, 6 + order.length, 10 - order.length);
    }
    assert.deepEqual(order, ['a', 'b', 'c']);
    assert.deepEqual(takeAll(q, 100), ['a@7', 'b@8', 'c@9']);
  });

  it('orders a large bucket by stamp too', () => {
    const q = new DueKeyQueue<Named>();
    const stamps = Array.from({ length: 300 }, (_, i) => (i * 7919) % 307);
    named(...stamps.map((s) => `s${s}`)).forEach((k, i) => q.schedule(k, 5, stamps[i]!));
    const out: string[] = [];
    for (let k = q.takeDue(5); k !== undefined; k = q.takeDue(5)) out.push(k.key);
    assert.deepEqual(
      out,
      [...stamps].sort((x, y) => x - y).map((s) => `s${s}`),
    );
  });

  it('keeps time order over many distinct times scheduled out of order', () => {
    const q = new DueKeyQueue<Named>();
    const times = Array.from({ length: 200 }, (_, i) => (i * 7919) % 211);
    named(...times.map((_, i) => `k${i}`)).forEach((k, i) => q.schedule(k, times[i]!, i));
    const out: number[] = [];
    for (let k = q.takeDue(1_000); k !== undefined; k = q.takeDue(1_000)) out.push(k.wakeAt);
    assert.deepEqual(
      out,
      [...times].sort((x, y) => x - y),
    );
  });

  it('orders a bucket whose run of ascending stamps has a few older ones behind it, and one with many', () => {
    for (const behind of [3, 40]) {
      const q = new DueKeyQueue<Named>();
      // 100 ascending stamps 1000.., with `behind` older stamps placed among them
      const stamps = Array.from({ length: 100 }, (_, i) => 1000 + i);
      for (let j = 0; j < behind; j++) stamps.splice(5 + j * 2, 0, 900 - j * 3);
      named(...stamps.map((s) => `s${s}`)).forEach((k, i) => q.schedule(k, 8, stamps[i]!));
      const out: string[] = [];
      for (let k = q.takeDue(8); k !== undefined; k = q.takeDue(8)) out.push(k.key);
      assert.deepEqual(
        out,
        [...stamps].sort((x, y) => x - y).map((s) => `s${s}`),
      );
    }
  });

  it('keeps times that share a slot of its table apart, and reuses emptied buckets for new times', () => {
    const q = new DueKeyQueue<Named>();
    const [a, b, c, d] = named('a', 'b', 'c', 'd') as [Named, Named, Named, Named];
    // 5, 5 + 4096 and 5 + 8192 fall in the same slot
    q.schedule(a, 5 + 4096, 1);
    q.schedule(b, 5, 2);
    q.schedule(c, 5 + 8192, 3);
    q.schedule(d, 5 + 4096, 4);
    assert.deepEqual(takeAll(q, 5), ['b@5']);
    q.schedule(b, 5 + 8192, 5);
    assert.deepEqual(takeAll(q, 5 + 4096), ['a@4101', 'd@4101']);
    q.schedule(a, 4200, 6); // an earlier time than any queued, in a bucket reused
    assert.deepEqual(takeAll(q, 20_000), ['a@4200', 'c@8197', 'b@8197']);
  });
});
