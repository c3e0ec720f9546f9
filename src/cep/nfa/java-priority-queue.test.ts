// JavaPriorityQueue keeps java.util.PriorityQueue's exact array order through offer, poll and removeIf.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newQueue, offer, peek, poll, removeIf } from './java-priority-queue.ts';

const byValue = (a: number, b: number) => a - b;

describe('JavaPriorityQueue', () => {
  it("offers and polls in the JDK's array order (offer 5 3 8 1 9 2: [1, 3, 2, 5, 9, 8])", () => {
    const q = newQueue<number>();
    for (const x of [5, 3, 8, 1, 9, 2]) offer(q, x, byValue);
    assert.deepEqual(q.items, [1, 3, 2, 5, 9, 8]);
    assert.equal(peek(q), 1);
    assert.equal(poll(q, byValue), 1);
    assert.deepEqual(q.items, [2, 3, 8, 5, 9]);
    assert.equal(poll(q, byValue), 2);
    assert.deepEqual(q.items, [3, 5, 8, 9]);
  });

  it('polls an empty queue as undefined, and a one-element queue to empty', () => {
    const q = newQueue<number>();
    assert.equal(poll(q, byValue), undefined);
    offer(q, 7, byValue);
    assert.equal(poll(q, byValue), 7);
    assert.deepEqual(q.items, []);
  });

  it('removeIf compacts the survivors and heapifies them (JDK bulkRemove)', () => {
    const q = newQueue<number>();
    for (const x of [3, 5, 8, 9, 6, 10, 12]) offer(q, x, byValue);
    assert.deepEqual(q.items, [3, 5, 8, 9, 6, 10, 12]);
    assert.equal(
      removeIf(q, (x) => x === 100, byValue),
      false,
    );
    assert.deepEqual(q.items, [3, 5, 8, 9, 6, 10, 12]);
    assert.equal(
      removeIf(q, (x) => x === 3 || x === 9, byValue),
      true,
    );
    // survivors in array order [5, 8, 6, 10, 12], already a heap: heapify keeps it
    assert.deepEqual(q.items, [5, 8, 6, 10, 12]);
    assert.equal(
      removeIf(q, (x) => x === 5, byValue),
      true,
    );
    // [8, 6, 10, 12] heapified: 8 sifts below 6
    assert.deepEqual(q.items, [6, 8, 10, 12]);
    assert.equal(
      removeIf(q, (x) => x > 6, byValue),
      true,
    );
    assert.deepEqual(q.items, [6]);
  });

  it('keeps equal elements in the order the sift algorithms leave them', () => {
    type E = { k: number; id: string };
    const byK = (a: E, b: E) => a.k - b.k;
    const q = newQueue<E>();
    for (const e of [
      { k: 1, id: 'a' },
      { k: 1, id: 'b' },
      { k: 0, id: 'c' },
    ])
      offer(q, e, byK);
    assert.deepEqual(
      q.items.map((e) => e.id),
      ['c', 'b', 'a'],
    );
    assert.equal(poll(q, byK)!.id, 'c');
    assert.deepEqual(
      q.items.map((e) => e.id),
      ['a', 'b'],
    );
  });

  it('removeIf keeps the survivors after the first removed element in their order', () => {
    const q = newQueue<number>();
    for (const x of [1, 2, 3, 4]) offer(q, x, byValue);
    assert.equal(
      removeIf(q, (x) => x === 2, byValue),
      true,
    );
    assert.deepEqual(q.items, [1, 3, 4]);
  });

  it('removeIf calls the filter only with elements of the queue, also when it removes none', () => {
    type E = { k: number };
    const byK = (a: E, b: E) => a.k - b.k;
    const q = newQueue<E>();
    for (const k of [1, 2]) offer(q, { k }, byK);
    const seen: unknown[] = [];
    const filter = (e: E) => {
      seen.push(e);
      return e.k === 100;
    };
    assert.equal(removeIf(q, filter, byK), false);
    assert.deepEqual(seen, [{ k: 1 }, { k: 2 }]);
  });

  it('poll moves the left child up when both children are equal (siftDown prefers the right only if smaller)', () => {
    type E = { k: number; id: string };
    const byK = (a: E, b: E) => a.k - b.k;
    const q = newQueue<E>();
    for (const e of [
      { k: 0, id: 'a' },
      { k: 1, id: 'b' },
      { k: 1, id: 'c' },
      { k: 2, id: 'd' },
    ])
      offer(q, e, byK);
    assert.deepEqual(
      q.items.map((e) => e.id),
      ['a', 'b', 'c', 'd'],
    );
    assert.equal(poll(q, byK)!.id, 'a');
    assert.deepEqual(
      q.items.map((e) => e.id),
      ['b', 'd', 'c'],
    );
  });
});
