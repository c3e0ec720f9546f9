// TimerHeap against a sorted-array reference on random operations (property test).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { assertProperty } from '../../test/support/property.ts';
import { TimerHeap, type HeapTimer } from './timer-heap.ts';

describe('TimerHeap', () => {
  it('polls like a de-duplicated, stably sorted list under random adds and removes', () => {
    const op = fc.record({
      kind: fc.constantFrom('add', 'add', 'remove', 'poll'),
      fresh: fc.boolean(),
      ts: fc.integer({ min: 0, max: 20 }),
      key: fc.integer({ min: 0, max: 4 }),
      ns: fc.integer({ min: 0, max: 1 }),
    });
    assertProperty(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const heap = new TimerHeap<number>();
        let reference: { ts: number; key: number; ns: number; seq: number }[] = [];
        let seq = 0;
        for (const o of ops) {
          if (o.kind === 'add') {
            const exists = reference.some((t) => t.ts === o.ts && t.key === o.key && t.ns === o.ns);
            // A timer known to be new goes in with addNew half the time (a key list, until something else comes).
            if (!exists && o.fresh) heap.addNew(o.ts, o.key, o.key, o.ns);
            else assert.equal(heap.add(o.ts, o.key, o.key, o.ns), !exists);
            if (!exists) reference.push({ ts: o.ts, key: o.key, ns: o.ns, seq: seq++ });
          } else if (o.kind === 'remove') {
            const before = reference.length;
            reference = reference.filter((t) => !(t.ts === o.ts && t.key === o.key && t.ns === o.ns));
            assert.equal(heap.remove(o.ts, o.key, o.ns), reference.length < before);
          } else {
            reference.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
            const expected = reference.shift();
            const got = heap.poll();
            assert.deepEqual(
              got && [got.timestamp, got.key, got.namespace],
              expected && [expected.ts, expected.key, expected.ns],
            );
          }
          assert.equal(heap.size, reference.length);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('with lazy deletion, answers every query as the eager heap and a sorted list do', () => {
    // Plain small keys a few to a timestamp (kept lazily, re-added at the timestamp a lazily deleted timer of theirs
    // still sits at, or at a second timestamp while one is kept), beside what the table does not keep: another
    // namespace, a string key, a composite key, a key past the table; and enough timers of one timestamp to turn a
    // lazy list into the Map form. Polled through poll, peek and the key-list path (pollListed). In half the runs a
    // key's timer is deleted before it registers another (a process function's one timer per key), and only small
    // keys of one namespace come, so the heap keeps its flat form throughout.
    type Key = number | string | readonly string[];
    const keyOf = (k: number): Key => (k === 9 ? 'nine' : k === 10 ? ['ten'] : k === 11 ? 1_000_000 : k);
    const normalized = (key: Key): number | string =>
      Array.isArray(key) ? `\u0000${key[0]}` : (key as number | string);
    const op = fc.record({
      kind: fc.oneof(
        {
          arbitrary: fc.constantFrom('add', 'add', 'add', 'remove', 'remove', 'poll', 'peek', 'listed'),
          weight: 40,
        },
        { arbitrary: fc.constant('clear'), weight: 1 },
      ),
      fresh: fc.boolean(),
      ts: fc.integer({ min: 0, max: 5 }),
      key: fc.oneof(
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 9, max: 11 }),
      ),
      ns: fc.constantFrom(0, 0, 0, 1),
    });
    assertProperty(
      fc.property(fc.array(op, { minLength: 50, maxLength: 800 }), fc.boolean(), (ops, oneTimerPerKey) => {
        const lazy = new TimerHeap<number>();
        lazy.deleteLazily(0);
        const eager = new TimerHeap<number>();
        let reference: { ts: number; key: Key; nk: number | string; ns: number; seq: number }[] = [];
        let seq = 0;
        const order = (a: { ts: number; seq: number }, b: { ts: number; seq: number }) =>
          a.ts - b.ts || a.seq - b.seq;
        const show = (t: HeapTimer<number> | undefined) =>
          t && [t.timestamp, t.key, t.normalizedKey, t.namespace];
        for (const o of ops) {
          const key = oneTimerPerKey ? o.key % 9 : keyOf(o.key);
          const nk = normalized(key);
          const ns = oneTimerPerKey ? 0 : o.ns;
          if (oneTimerPerKey) {
            const held = reference.find((t) => t.nk === nk);
            if (o.kind === 'add' && held !== undefined && held.ts !== o.ts) {
              reference = reference.filter((t) => t !== held);
              assert.equal(lazy.remove(held.ts, nk, 0), true);
              assert.equal(eager.remove(held.ts, nk, 0), true);
            }
          }
          if (o.kind === 'add') {
            const exists = reference.some((t) => t.ts === o.ts && t.nk === nk && t.ns === ns);
            if (!exists && o.fresh) {
              lazy.addNew(o.ts, key, nk, ns);
              eager.addNew(o.ts, key, nk, ns);
            } else {
              assert.equal(lazy.add(o.ts, key, nk, ns), !exists);
              assert.equal(eager.add(o.ts, key, nk, ns), !exists);
            }
            if (!exists) reference.push({ ts: o.ts, key, nk, ns: ns, seq: seq++ });
          } else if (o.kind === 'remove') {
            const before = reference.length;
            reference = reference.filter((t) => !(t.ts === o.ts && t.nk === nk && t.ns === ns));
            assert.equal(lazy.remove(o.ts, nk, ns), reference.length < before);
            assert.equal(eager.remove(o.ts, nk, ns), reference.length < before);
          } else if (o.kind === 'clear') {
            lazy.clear();
            eager.clear();
            reference = [];
          } else if (o.kind === 'listed') {
            // The key-list path as the timer service takes it: the head's namespace, then its keys one by one.
            reference.sort(order);
            const namespace = lazy.headListNamespace();
            const timestamp = lazy.peekTimestamp();
            if (namespace !== undefined && timestamp !== undefined) {
              let polled: number | string | undefined;
              while (
                (polled = lazy.pollListed(timestamp, namespace) as number | string | undefined) !== undefined
              ) {
                const expected = reference.shift()!;
                assert.deepEqual([timestamp, polled, namespace], [expected.ts, expected.nk, expected.ns]);
                const got = eager.poll()!;
                assert.deepEqual(
                  [got.timestamp, got.normalizedKey, got.namespace],
                  [timestamp, polled, namespace],
                );
              }
            }
          } else {
            reference.sort(order);
            const expected = o.kind === 'poll' ? reference.shift() : reference[0];
            const got = o.kind === 'poll' ? lazy.poll() : lazy.peek();
            assert.deepEqual(show(got), expected && [expected.ts, expected.key, expected.nk, expected.ns]);
            assert.deepEqual(show(o.kind === 'poll' ? eager.poll() : eager.peek()), show(got));
          }
          assert.equal(lazy.size, reference.length);
          assert.equal(eager.size, reference.length);
          assert.equal(
            lazy.peekTimestamp(),
            reference.length === 0 ? undefined : Math.min(...reference.map((t) => t.ts)),
          );
        }
        reference.sort(order);
        assert.deepEqual(
          lazy.values().map((t) => [t.timestamp, t.key, t.normalizedKey, t.namespace]),
          reference.map((t) => [t.ts, t.key, t.nk, t.ns]),
        );
        assert.deepEqual(lazy.values().map(show), eager.values().map(show));
        assert.ok(lazy.numListed() <= lazy.size);
        if (oneTimerPerKey) assert.notEqual((lazy as unknown as { flat: unknown }).flat, undefined);
      }),
      { numRuns: 300 },
    );
  });

  it('with lazy deletion, a removed timer leaves its bucket only when the heap reaches it, in order', () => {
    const heap = new TimerHeap<number>();
    heap.deleteLazily(0);
    for (const key of [1, 2, 3]) heap.add(100, key, key, 0);
    heap.add(200, 4, 4, 0);
    assert.equal(heap.remove(100, 2, 0), true);
    assert.equal(heap.remove(100, 2, 0), false);
    assert.equal(heap.size, 3);
    // Registered again at the same time: after 3, as a new registration.
    assert.equal(heap.add(100, 2, 2, 0), true);
    assert.equal(heap.add(100, 2, 2, 0), false);
    // A second timer of a key whose first is in the table is kept as usual, and removed as usual.
    assert.equal(heap.add(200, 1, 1, 0), true);
    assert.equal(heap.remove(100, 1, 0), true);
    assert.equal(heap.remove(100, 3, 0), true);
    assert.deepEqual(
      heap.values().map((t) => [t.timestamp, t.key]),
      [
        [100, 2],
        [200, 4],
        [200, 1],
      ],
    );
    assert.equal(heap.poll()?.key, 2);
    assert.equal(heap.remove(100, 2, 0), false);
    assert.equal(heap.remove(200, 1, 0), true);
    assert.equal(heap.peekTimestamp(), 200);
    assert.equal(heap.poll()?.key, 4);
    assert.equal(heap.poll(), undefined);
    assert.equal(heap.size, 0);
  });

  it('with lazy deletion, drops deleted timers once they outnumber the queued ones, whatever their timestamps', () => {
    // A timer deleted and registered again further ahead on every record (a timeout pushed back): the deleted ones
    // would wait for the watermark, one per record, without the sweep. In the flat form, and in buckets (a string
    // key's timer moves the heap there).
    for (const form of ['flat', 'buckets']) {
      const heap = new TimerHeap<number>();
      heap.deleteLazily(0);
      if (form === 'buckets') heap.add(1, 'first', 'first', 0);
      const internals = heap as unknown as {
        stale: number;
        heap: unknown[];
        flat: { length: number } | undefined;
      };
      assert.equal(internals.flat === undefined, form === 'buckets');
      for (let i = 0; i < 20_000; i++) {
        const key = i % 7;
        if (i >= 7) assert.equal(heap.remove(1_000_000 + i - 7, key, 0), true);
        assert.equal(heap.add(1_000_000 + i, key, key, 0), true);
        const kept = internals.flat?.length ?? internals.stale;
        assert.ok(kept <= 2 * heap.size + 4096, `${form}: ${kept} entries kept at ${i}`);
      }
      assert.ok(internals.heap.length <= heap.size + 4096);
      assert.deepEqual(
        heap.values().map((t) => [t.timestamp, t.key]),
        [
          ...(form === 'buckets' ? [[1, 'first']] : []),
          ...[0, 1, 2, 3, 4, 5, 6].map((j) => [1_000_000 + 19_993 + j, (19_993 + j) % 7]),
        ],
      );
    }
  });

  it('moves a timer as an add of the new one followed by a remove of the old one', () => {
    // Against a sorted list: a move leaves the new timer last at its timestamp (or where it was, when queued
    // already) and the old one gone, so moving a timer onto itself removes it. A few keys and namespaces a
    // timestamp, or many: every bucket form.
    const op = fc.record({
      kind: fc.constantFrom('add', 'move', 'move', 'remove', 'poll'),
      fresh: fc.boolean(),
      ts: fc.integer({ min: 0, max: 6 }),
      to: fc.integer({ min: 0, max: 6 }),
      key: fc.integer({ min: 0, max: 40 }),
      ns: fc.integer({ min: 0, max: 2 }),
      toNs: fc.integer({ min: 0, max: 2 }),
    });
    assertProperty(
      fc.property(fc.array(op, { maxLength: 600 }), (ops) => {
        const heap = new TimerHeap<number>();
        let reference: { ts: number; key: number; ns: number; seq: number }[] = [];
        let seq = 0;
        const has = (ts: number, key: number, ns: number): boolean =>
          reference.some((t) => t.ts === ts && t.key === key && t.ns === ns);
        const drop = (ts: number, key: number, ns: number): void => {
          reference = reference.filter((t) => !(t.ts === ts && t.key === key && t.ns === ns));
        };
        for (const o of ops) {
          if (o.kind === 'add') {
            const exists = has(o.ts, o.key, o.ns);
            if (!exists && o.fresh) heap.addNew(o.ts, o.key, o.key, o.ns);
            else assert.equal(heap.add(o.ts, o.key, o.key, o.ns), !exists);
            if (!exists) reference.push({ ts: o.ts, key: o.key, ns: o.ns, seq: seq++ });
          } else if (o.kind === 'move') {
            heap.move(o.ts, o.ns, o.to, o.key, o.key, o.toNs);
            if (!has(o.to, o.key, o.toNs)) reference.push({ ts: o.to, key: o.key, ns: o.toNs, seq: seq++ });
            drop(o.ts, o.key, o.ns);
          } else if (o.kind === 'remove') {
            const exists = has(o.ts, o.key, o.ns);
            drop(o.ts, o.key, o.ns);
            assert.equal(heap.remove(o.ts, o.key, o.ns), exists);
          } else {
            reference.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
            const expected = reference.shift();
            const got = heap.poll();
            assert.deepEqual(
              got && [got.timestamp, got.key, got.namespace],
              expected && [expected.ts, expected.key, expected.ns],
            );
          }
          assert.equal(heap.size, reference.length);
        }
        reference.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
        assert.deepEqual(
          heap.values().map((t) => [t.timestamp, t.key, t.namespace]),
          reference.map((t) => [t.ts, t.key, t.ns]),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('keeps (timestamp, registration) order through bucket compaction, with many timers per timestamp', () => {
    const op = fc.record({
      kind: fc.constantFrom('add', 'add', 'add', 'remove', 'remove', 'poll', 'peek'),
      fresh: fc.boolean(),
      ts: fc.integer({ min: 0, max: 2 }),
      key: fc.integer({ min: 0, max: 60 }),
      ns: fc.integer({ min: 0, max: 1 }),
    });
    assertProperty(
      fc.property(fc.array(op, { maxLength: 1500 }), (ops) => {
        const heap = new TimerHeap<number>();
        let reference: { ts: number; key: number; ns: number; seq: number }[] = [];
        let seq = 0;
        const order = (a: { ts: number; seq: number }, b: { ts: number; seq: number }) =>
          a.ts - b.ts || a.seq - b.seq;
        for (const o of ops) {
          if (o.kind === 'add') {
            const exists = reference.some((t) => t.ts === o.ts && t.key === o.key && t.ns === o.ns);
            if (!exists && o.fresh) heap.addNew(o.ts, o.key, o.key, o.ns);
            else assert.equal(heap.add(o.ts, o.key, o.key, o.ns), !exists);
            if (!exists) reference.push({ ts: o.ts, key: o.key, ns: o.ns, seq: seq++ });
          } else if (o.kind === 'remove') {
            const before = reference.length;
            reference = reference.filter((t) => !(t.ts === o.ts && t.key === o.key && t.ns === o.ns));
            assert.equal(heap.remove(o.ts, o.key, o.ns), reference.length < before);
          } else {
            reference.sort(order);
            const expected = o.kind === 'poll' ? reference.shift() : reference[0];
            const got = o.kind === 'poll' ? heap.poll() : heap.peek();
            assert.deepEqual(
              got && [got.timestamp, got.key, got.namespace],
              expected && [expected.ts, expected.key, expected.ns],
            );
          }
          assert.equal(heap.size, reference.length);
        }
        const all = [...heap.values()].map((t) => [t.timestamp, t.key, t.namespace]).sort();
        assert.deepEqual(all, reference.map((t) => [t.ts, t.key, t.ns]).sort());
      }),
      { numRuns: 200 },
    );
  });

  it("polling a key's later-registered earlier timer keeps its other timers findable", () => {
    const heap = new TimerHeap<number>();
    heap.add(20, 'k', 'k', 0);
    heap.add(10, 'k', 'k', 0);
    assert.equal(heap.poll()!.timestamp, 10);
    assert.equal(heap.add(20, 'k', 'k', 0), false, 'still registered');
    assert.equal(heap.remove(20, 'k', 0), true);
    assert.equal(heap.size, 0);
  });

  it('lists only live timers after removals, and clear empties it', () => {
    const heap = new TimerHeap<number>();
    for (const key of [1, 2, 3]) heap.add(7, key, key, 0);
    heap.add(9, 1, 1, 0);
    assert.equal(heap.remove(7, 2, 0), true, 'removed from a bucket that keeps other timers');
    assert.deepEqual(
      heap.values().map((t) => [t.timestamp, t.key]),
      [
        [7, 1],
        [7, 3],
        [9, 1],
      ],
    );
    heap.clear();
    assert.equal(heap.size, 0);
    assert.equal(heap.peek(), undefined);
    assert.deepEqual(heap.values(), []);
    assert.equal(heap.add(7, 1, 1, 0), true, 'cleared timers are gone from the key index too');
    assert.equal(heap.poll()!.timestamp, 7);
  });

  it('compacts a bucket after many removals and polls without losing order', () => {
    const heap = new TimerHeap<number>();
    for (let key = 0; key < 300; key++) heap.add(5, key, key, 0);
    for (let key = 0; key < 300; key++) if (key % 5 !== 0) heap.remove(5, key, 0); // holes → compaction
    for (let i = 0; i < 20; i++) assert.equal(heap.poll()!.key, i * 5);
    for (let key = 300; key < 500; key++) heap.add(5, key, key, 0);
    for (let key = 300; key < 400; key++) heap.remove(5, key, 0);
    const rest: unknown[] = [];
    while (heap.peek() !== undefined) rest.push(heap.poll()!.key);
    const expected = [
      ...Array.from({ length: 40 }, (_, i) => 100 + i * 5),
      ...Array.from({ length: 100 }, (_, i) => 400 + i),
    ];
    assert.deepEqual(rest, expected);
    assert.equal(heap.size, 0);
  });

  it('keeps registration order across keys when a key has several namespaces at one timestamp', () => {
    const heap = new TimerHeap<number>();
    heap.add(5, 'a', 'a', 1);
    heap.add(5, 'b', 'b', 1);
    heap.add(5, 'a', 'a', 2); // the key's second namespace at 5: after b's timer, not beside a's first
    heap.add(5, 'c', 'c', 1);
    assert.equal(heap.add(5, 'a', 'a', 2), false, 'a duplicate of the second namespace');
    assert.deepEqual(
      heap.values().map((t) => [t.key, t.namespace]),
      [
        ['a', 1],
        ['b', 1],
        ['a', 2],
        ['c', 1],
      ],
    );
    assert.equal(heap.remove(5, 'a', 1), true, "the key's first namespace goes");
    assert.equal(heap.add(5, 'a', 'a', 2), false, 'its second one is still found');
    assert.equal(heap.add(5, 'a', 'a', 3), true);
    const order: unknown[] = [];
    for (let t = heap.poll(); t !== undefined; t = heap.poll()) order.push(`${String(t.key)}${t.namespace}`);
    assert.deepEqual(order, ['b1', 'a2', 'c1', 'a3']);
    assert.equal(heap.size, 0);
  });

  it('hands out the key a timer was registered with, beside its normalized key', () => {
    const heap = new TimerHeap<number>();
    const composite = { user: 7, region: 'eu' };
    heap.add(3, composite, '7|eu', 0);
    heap.add(3, composite, '7|eu', 1);
    heap.add(3, 9, 9, 0);
    assert.equal(heap.add(3, composite, '7|eu', 0), false);
    const first = heap.poll()!;
    assert.equal(first.key, composite);
    assert.equal(first.normalizedKey, '7|eu');
    assert.deepEqual(
      heap.values().map((t) => [t.key, t.normalizedKey, t.namespace]),
      [
        [composite, '7|eu', 1],
        [9, 9, 0],
      ],
    );
    assert.equal(heap.remove(3, '7|eu', 1), true);
    assert.equal(heap.remove(3, '7|eu', 1), false);
    assert.deepEqual(heap.poll(), { timestamp: 3, key: 9, normalizedKey: 9, namespace: 0 });
  });

  it('compares namespaces by their key, not by identity', () => {
    const heap = new TimerHeap<{ start: number }>((w) => `w${w.start}`);
    assert.equal(heap.add(9, 1, 1, { start: 0 }), true);
    assert.equal(heap.add(9, 1, 1, { start: 0 }), false, 'an equal window is the same timer');
    assert.equal(heap.add(9, 1, 1, { start: 5 }), true);
    assert.equal(heap.remove(9, 1, { start: 5 }), true);
    assert.equal(heap.remove(9, 1, { start: 0 }), true);
    assert.equal(heap.size, 0);
  });

  it("asks for a namespace's key only to compare two namespace objects", () => {
    const asked: number[] = [];
    const heap = new TimerHeap<{ start: number }>((w) => {
      asked.push(w.start);
      return `w${w.start}`;
    });
    const grown = { start: 0 };
    assert.equal(heap.add(9, 1, 1, grown), true);
    assert.equal(heap.add(9, 1, 1, grown), false, 'the same object again');
    assert.equal(heap.remove(9, 1, grown), true);
    assert.deepEqual(asked, [], 'no key built for one object');
    heap.add(9, 1, 1, grown);
    assert.equal(heap.remove(9, 1, { start: 0 }), true, 'an equal window found by its key');
    assert.deepEqual(asked, [0, 0]);
  });

  it('with an equality, compares two namespace objects by it and never asks for their keys', () => {
    const asked: number[] = [];
    const heap = new TimerHeap<{ start: number; end: number }>(
      (w) => {
        asked.push(w.start);
        return `${w.start}:${w.end}`;
      },
      (a, b) => a.start === b.start && a.end === b.end,
    );
    assert.equal(heap.add(9, 1, 1, { start: 0, end: 10 }), true);
    assert.equal(heap.add(9, 1, 1, { start: 0, end: 10 }), false, 'an equal window is the same timer');
    assert.equal(heap.add(9, 1, 1, { start: 0, end: 12 }), true);
    assert.equal(heap.add(9, 1, 1, { start: 0, end: 12 }), false);
    assert.equal(heap.remove(9, 1, { start: 0, end: 12 }), true);
    assert.equal(heap.remove(9, 1, { start: 0, end: 11 }), false);
    assert.equal(heap.remove(9, 1, { start: 0, end: 10 }), true);
    assert.deepEqual([heap.size, asked], [0, []]);
  });

  it("hands out polled, peeked and listed timers without asking for their namespace's key", () => {
    const asked: number[] = [];
    const heap = new TimerHeap<{ start: number }>((w) => {
      asked.push(w.start);
      return `w${w.start}`;
    });
    const first = { start: 0 };
    const second = { start: 5 };
    heap.add(9, 1, 1, first);
    heap.add(9, 'k', '2|k', second); // a composite key: an entry object
    assert.deepEqual(
      heap.values().map((t) => t.namespace),
      [first, second],
    );
    assert.equal(heap.peek()!.namespace, first);
    assert.equal(heap.poll()!.namespace, first);
    assert.equal(heap.poll()!.namespace, second);
    assert.deepEqual(asked, [], 'a fired timer needs no key');
  });

  it('forgets a peeked timer that is removed, and fires timers added to the bucket it polls', () => {
    const heap = new TimerHeap<number>();
    for (const key of [1, 2, 3]) heap.add(4, key, key, 0);
    assert.equal(heap.peek()!.key, 1);
    assert.equal(heap.remove(4, 1, 0), true);
    assert.equal(heap.peek()!.key, 2, 'the removed head is not handed out');
    assert.equal(heap.poll()!.key, 2);
    heap.add(4, 1, 1, 0); // registered again while its timestamp is being polled: last in line
    heap.add(2, 8, 8, 0); // an earlier timestamp goes first
    assert.deepEqual(
      [heap.poll()!.key, heap.poll()!.key, heap.poll()!.key, heap.poll()],
      [8, 3, 1, undefined],
    );
    assert.equal(heap.peekTimestamp(), undefined);
  });

  it('keeps a timer whose namespace is undefined apart from no timer', () => {
    const heap = new TimerHeap<undefined>(() => 'void');
    assert.equal(heap.add(1, 'k', 'k', undefined), true);
    assert.equal(heap.add(1, 'k', 'k', undefined), false);
    assert.deepEqual(heap.poll(), {
      timestamp: 1,
      key: 'k',
      normalizedKey: 'k',
      namespace: undefined,
    });
  });

  it('removes the right one of several namespaces, and forgets polled ones', () => {
    const heap = new TimerHeap<number>();
    for (const ns of [0, 1, 2]) heap.add(3, 'k', 'k', ns);
    assert.equal(heap.remove(3, 'k', 2), true);
    assert.deepEqual(
      heap.values().map((t) => t.namespace),
      [0, 1],
    );
    assert.equal(heap.remove(3, 'x', 0), false, 'no timer of that key');
    heap.add(3, 'z', 'z', 0); // keeps the timestamp's bucket alive through the polls below
    assert.deepEqual([heap.poll()!.namespace, heap.poll()!.namespace], [0, 1]);
    assert.equal(heap.add(3, 'k', 'k', 1), true, 'a polled timer of a second namespace is gone');
    assert.equal(heap.add(3, 'k', 'k', 2), true, 'so is a removed one');
    assert.deepEqual(
      heap.values().map((t) => [t.key, t.namespace]),
      [
        ['z', 0],
        ['k', 1],
        ['k', 2],
      ],
    );
  });

  it('keeps a peeked timer when another timer of its timestamp is removed', () => {
    const heap = new TimerHeap<number>();
    for (const key of [1, 2, 3]) heap.add(4, key, key, 0);
    assert.equal(heap.peek()!.key, 1);
    assert.equal(heap.remove(4, 2, 0), true);
    assert.deepEqual([heap.poll()!.key, heap.poll()!.key, heap.poll()], [1, 3, undefined]);
  });

  it('lists timers in timestamp order whatever order the heap keeps its buckets in, and stays a heap', () => {
    const heap = new TimerHeap<number>();
    for (const ts of [10, 50, 20, 60, 30, 40]) heap.add(ts, ts, ts, 0);
    assert.deepEqual(
      heap.values().map((t) => t.timestamp),
      [10, 20, 30, 40, 50, 60],
    );
    assert.equal(heap.remove(20, 20, 0), true);
    const polled: number[] = [];
    for (let t = heap.poll(); t !== undefined; t = heap.poll()) polled.push(t.timestamp);
    assert.deepEqual(polled, [10, 30, 40, 50, 60]);
  });

  it('does not mistake a key without a timer for one whose namespace is undefined', () => {
    const heap = new TimerHeap<undefined>(() => 'void');
    heap.add(1, 'k', 'k', undefined);
    assert.equal(heap.remove(1, 'x', undefined), false);
    assert.equal(heap.size, 1);
  });

  describe('the table of timestamps', () => {
    // Timestamps that share a slot whatever the table's size: equal low 32 bits (2^32 apart) or one integer part
    // (fractions); beside them enough distinct ones to make the table grow several times while timers are queued.
    const sharing = [5, 5 + 2 ** 32, 5 - 2 ** 32, 5.25, 5.75, 1.7e12, 1.7e12 + 2 ** 32, -3, -3 + 2 ** 32];

    it('tells apart timestamps that share a slot and finds every one through growth, against a reference', () => {
      const op = fc.record({
        kind: fc.constantFrom('add', 'add', 'add', 'remove', 'poll'),
        ts: fc.oneof(fc.constantFrom(...sharing), fc.integer({ min: 0, max: 400 })),
        key: fc.integer({ min: 0, max: 3 }),
      });
      assertProperty(
        fc.property(fc.array(op, { maxLength: 1200 }), (ops) => {
          const heap = new TimerHeap<number>();
          let reference: { ts: number; key: number; seq: number }[] = [];
          let seq = 0;
          for (const o of ops) {
            if (o.kind === 'add') {
              const exists = reference.some((t) => t.ts === o.ts && t.key === o.key);
              assert.equal(heap.add(o.ts, o.key, o.key, 0), !exists);
              if (!exists) reference.push({ ts: o.ts, key: o.key, seq: seq++ });
            } else if (o.kind === 'remove') {
              const before = reference.length;
              reference = reference.filter((t) => !(t.ts === o.ts && t.key === o.key));
              assert.equal(heap.remove(o.ts, o.key, 0), reference.length < before);
            } else {
              reference.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
              const expected = reference.shift();
              const got = heap.poll();
              assert.deepEqual(got && [got.timestamp, got.key], expected && [expected.ts, expected.key]);
            }
            assert.equal(heap.size, reference.length);
          }
          assert.deepEqual(
            heap.values().map((t) => [t.timestamp, t.key]),
            reference.sort((a, b) => a.ts - b.ts || a.seq - b.seq).map((t) => [t.ts, t.key]),
          );
        }),
        { numRuns: 200 },
      );
    });

    it('drops any bucket of a shared slot, first or later in its chain, and keeps the others', () => {
      for (const dropped of sharing) {
        const heap = new TimerHeap<number>();
        for (const ts of sharing) heap.add(ts, 1, 1, 0);
        assert.equal(heap.remove(dropped, 1, 0), true);
        assert.equal(heap.remove(dropped, 1, 0), false);
        for (const ts of sharing) assert.equal(heap.add(ts, 1, 1, 0), ts === dropped, `${ts}`);
        const polled: number[] = [];
        for (let t = heap.poll(); t !== undefined; t = heap.poll()) polled.push(t.timestamp);
        assert.deepEqual(
          polled,
          [...sharing].sort((a, b) => a - b),
        );
      }
    });

    it('finds -0 as 0 and keeps infinite timestamps, as a Map of timestamps did', () => {
      const heap = new TimerHeap<number>();
      assert.equal(heap.add(-0, 1, 1, 0), true);
      assert.equal(heap.add(0, 1, 1, 0), false);
      assert.equal(heap.add(Infinity, 1, 1, 0), true);
      assert.equal(heap.add(-Infinity, 1, 1, 0), true);
      assert.equal(heap.remove(0, 1, 0), true);
      assert.equal(heap.add(0, 2, 2, 0), true);
      assert.deepEqual(
        [heap.poll(), heap.poll(), heap.poll(), heap.poll()].map((t) => t && [t.timestamp, t.key]),
        [[-Infinity, 1], [0, 2], [Infinity, 1], undefined],
      );
    });

    it('starts small again after clear', () => {
      const heap = new TimerHeap<number>();
      for (let ts = 0; ts < 5_000; ts++) heap.add(ts * 1_024, 1, 1, 0);
      heap.clear();
      assert.equal(heap.size, 0);
      assert.equal(heap.remove(1_024, 1, 0), false);
      assert.equal(heap.add(1_024, 1, 1, 0), true);
      assert.deepEqual(
        heap.values().map((t) => t.timestamp),
        [1_024],
      );
    });
  });

  describe('a short key list for add and remove', () => {
    it('de-duplicates, removes and polls in registration order up to 32 queued keys, then takes a Map', () => {
      const heap = new TimerHeap<number>();
      for (let key = 31; key >= 0; key--) assert.equal(heap.add(9, key, key, 0), true);
      assert.equal(heap.numListed(), 32, 'every timer an array slot');
      assert.equal(heap.add(9, 7, 7, 0), false, 'a listed key is a duplicate');
      assert.equal(heap.remove(9, 7, 0), true);
      assert.equal(heap.remove(9, 7, 0), false, 'removed once');
      assert.equal(heap.poll()!.key, 31);
      assert.equal(heap.remove(9, 31, 0), false, 'a polled timer is gone');
      assert.equal(heap.add(9, 7, 7, 0), true, 'a removed timer can come back, last in line');
      assert.equal(heap.numListed(), 31);
      assert.equal(heap.add(9, 100, 100, 0), true);
      assert.equal(heap.numListed(), 32);
      assert.equal(heap.add(9, 101, 101, 0), true, 'a 33rd queued key turns the list into a Map');
      assert.equal(heap.numListed(), 0);
      assert.equal(heap.add(9, 100, 100, 0), false, 'still de-duplicated');
      const keys: unknown[] = [];
      while (heap.peek() !== undefined) keys.push(heap.poll()!.key);
      const expected = [...Array.from({ length: 31 }, (_, i) => 30 - i).filter((k) => k !== 7), 7, 100, 101];
      assert.deepEqual(keys, expected);
      assert.equal(heap.size, 0);
    });

    it('drops a timestamp whose last listed timer is removed, and keeps the one it polls', () => {
      const heap = new TimerHeap<number>();
      heap.add(5, 1, 1, 0);
      heap.add(5, 2, 2, 0);
      heap.add(8, 3, 3, 0);
      assert.equal(heap.peek()!.key, 1);
      assert.equal(heap.remove(5, 2, 0), true, 'behind the peeked timer');
      assert.equal(heap.poll()!.key, 1);
      assert.equal(heap.peekTimestamp(), 8, 'timestamp 5 is empty and gone');
      assert.equal(heap.remove(8, 3, 0), true);
      assert.equal(heap.peekTimestamp(), undefined);
      assert.equal(heap.add(5, 2, 2, 0), true, 'a dropped timestamp starts afresh');
      assert.equal(heap.size, 1);
    });

    it('removes by an equal namespace, and turns into pairs for another namespace or a Map for a composite key', () => {
      const window = { start: 0 };
      const other = { start: 0 }; // equal to window, another object
      const later = { start: 1 };
      const heap = new TimerHeap<{ start: number }>((w) => `w${w.start}`);
      heap.add(9, 1, 1, window);
      heap.add(9, 2, 2, window);
      assert.equal(heap.numListed(), 2);
      assert.equal(heap.remove(9, 2, other), true, 'an equal namespace removes the listed timer');
      assert.equal(heap.remove(9, 1, later), false, 'another namespace has no timer in the list');
      assert.equal(heap.numListed(), 1);
      assert.equal(heap.add(9, 1, 1, other), false, 'an equal namespace is a duplicate');
      assert.equal(heap.add(9, 3, 3, later), true);
      assert.equal(heap.numListed(), 0, 'a pair list now');
      heap.add(4, 1, 1, window);
      heap.add(4, { user: 1 }, 'u1', window);
      assert.equal(heap.numListed(), 0);
      assert.deepEqual(
        heap.values().map((t) => [t.timestamp, t.normalizedKey, t.namespace.start]),
        [
          [4, 1, 0],
          [4, 'u1', 0],
          [9, 1, 0],
          [9, 3, 1],
        ],
      );
      assert.equal(
        heap.values()[2]!.namespace,
        window,
        'the timer keeps the namespace it was registered with',
      );
      assert.equal(heap.remove(9, 1, other), true, 'from the pair list, by an equal namespace');
      const keys = [heap.poll()!.key, heap.poll()!.key, heap.poll()!.key, heap.poll()];
      assert.deepEqual(keys, [1, { user: 1 }, 3, undefined]);
    });
  });

  describe('timers at scattered timestamps (a pair list per timestamp)', () => {
    const a = { start: 0 };
    const b = { start: 1 };

    it('keeps up to 16 timers of a timestamp in order, then a Map, with every key and namespace', () => {
      const heap = new TimerHeap<{ start: number }>((w) => `w${w.start}`);
      for (let key = 0; key < 16; key++) assert.equal(heap.add(5, key, key, key === 3 ? b : a), true);
      assert.equal(heap.add(5, 3, 3, b), false, 'a duplicate in the pair list');
      assert.equal(heap.add(5, 3, 3, { start: 1 }), false, 'an equal namespace is the same timer');
      assert.equal(
        heap.add(5, 3, 3, a),
        true,
        "a key's second namespace: the 17th timer turns it into a Map",
      );
      assert.equal(heap.remove(5, 4, a), true);
      assert.equal(heap.add(5, 4, 4, a), true, 'added again: last in line');
      assert.equal(heap.add(5, 3, 3, a), false, 'found in the Map');
      assert.equal(heap.numListed(), 0);
      const polled: [number, number][] = [];
      for (let timer = heap.poll(); timer !== undefined; timer = heap.poll())
        polled.push([timer.key as number, timer.namespace.start]);
      const expected: [number, number][] = [];
      for (let key = 0; key < 16; key++) if (key !== 4) expected.push([key, key === 3 ? 1 : 0]);
      expected.push([3, 0], [4, 0]);
      assert.deepEqual(polled, expected);
      assert.equal(heap.size, 0);
    });

    it('removes from a pair list, also while its timestamp is polled, and drops the emptied timestamp', () => {
      const heap = new TimerHeap<{ start: number }>((w) => `w${w.start}`);
      heap.add(5, 1, 1, a);
      heap.add(5, 2, 2, a);
      heap.add(5, 2, 2, b);
      heap.add(6, 9, 9, a);
      assert.equal(heap.remove(5, 2, { start: 0 }), true, 'by an equal namespace');
      assert.equal(heap.remove(5, 2, a), false);
      assert.equal(heap.remove(5, 7, a), false, 'a key without a timer there');
      assert.deepEqual([heap.peek()!.key, heap.size], [1, 3]);
      assert.equal(heap.poll()!.key, 1);
      assert.equal(heap.remove(5, 1, a), false, 'polled already');
      heap.add(5, 3, 3, a); // while the timestamp is polled: after the others
      assert.equal(heap.remove(5, 2, b), true);
      assert.deepEqual(
        heap.values().map((t) => [t.timestamp, t.key]),
        [
          [5, 3],
          [6, 9],
        ],
      );
      assert.equal(heap.poll()!.key, 3);
      assert.equal(heap.peekTimestamp(), 6, 'the emptied timestamp is gone');
      assert.equal(heap.remove(6, 9, a), true);
      assert.deepEqual([heap.size, heap.peekTimestamp(), heap.poll()], [0, undefined, undefined]);
    });

    it('turns a pair list into a Map for a composite key, keeping the order', () => {
      const heap = new TimerHeap<{ start: number }>((w) => `w${w.start}`);
      const composite = { id: 7 };
      heap.add(5, 1, 1, a);
      heap.add(5, 1, 1, b);
      heap.add(5, composite, '7', a);
      assert.equal(heap.add(5, 1, 1, b), false);
      assert.deepEqual(
        heap.values().map((t) => [t.key, t.namespace.start]),
        [
          [1, 0],
          [1, 1],
          [composite, 0],
        ],
      );
      assert.equal(heap.remove(5, 1, b), true);
      assert.deepEqual([heap.poll()!.key, heap.poll()!.key, heap.poll()], [1, composite, undefined]);
    });

    it('costs no Map per timestamp: six timers at each of many timestamps take under 62 bytes each', () => {
      setFlagsFromString('--expose-gc');
      const collectGarbage = runInNewContext('gc') as () => void;
      const timestamps = 20_000;
      const perTimestamp = 6;
      collectGarbage();
      const before = process.memoryUsage().heapUsed;
      const heap = new TimerHeap<object>();
      const windows = [a, b, { start: 2 }];
      for (let t = 0; t < timestamps; t++)
        for (let k = 0; k < perTimestamp; k++) heap.add(t, t * 8 + k, t * 8 + k, windows[k % 3]!);
      collectGarbage();
      const bytes = (process.memoryUsage().heapUsed - before) / (timestamps * perTimestamp);
      assert.equal(heap.size, timestamps * perTimestamp);
      // A Map per timestamp cost 76 bytes per timer here; the pair lists 52 (Node 20 and 24).
      assert.ok(bytes < 62, `${bytes.toFixed(1)} bytes per timer`);
    });
  });

  describe('timers known to be new (addNew)', () => {
    const window = { start: 0 };
    const other = { start: 0 }; // an equal window, but another object

    it("keeps a window end's keys in registration order, and hands each out with the namespace", () => {
      const heap = new TimerHeap<{ start: number }>((w) => `w${w.start}`);
      for (const key of [3, 1, 2]) heap.addNew(9, key, key, window);
      heap.addNew(4, 7, 7, window);
      assert.equal(heap.size, 4);
      assert.equal(heap.numListed(), 4);
      assert.deepEqual(
        heap.values().map((t) => [t.timestamp, t.key, t.normalizedKey, t.namespace === window]),
        [
          [4, 7, 7, true],
          [9, 3, 3, true],
          [9, 1, 1, true],
          [9, 2, 2, true],
        ],
      );
      assert.equal(heap.poll()!.key, 7);
      assert.equal(heap.numListed(), 3);
      assert.equal(heap.peek()!.key, 3);
      assert.equal(heap.peek()!.namespace, window);
      const polled = [heap.poll()!, heap.poll()!];
      assert.deepEqual(
        polled.map((t) => [t.timestamp, t.key]),
        [
          [9, 3],
          [9, 1],
        ],
      );
      heap.addNew(9, 5, 5, window); // added while its timestamp is being polled: last in line
      assert.deepEqual([heap.poll()!.key, heap.poll()!.key, heap.poll()], [2, 5, undefined]);
      assert.equal(heap.size, 0);
      assert.equal(heap.peekTimestamp(), undefined);
      heap.addNew(9, 1, 1, window);
      assert.equal(heap.add(9, 1, 1, window), false, 'a polled-out timestamp starts a fresh list');
    });

    it('finds, removes and de-duplicates listed timers, keeping their order', () => {
      const heap = new TimerHeap<{ start: number }>((w) => `w${w.start}`);
      for (const key of [1, 2, 3, 4]) heap.addNew(9, key, key, window);
      assert.equal(heap.poll()!.key, 1, 'a polled timer stays polled when the list becomes a Map');
      assert.equal(heap.numListed(), 3);
      assert.equal(heap.add(9, 3, 3, other), false, 'an equal window of a listed key is a duplicate');
      assert.equal(heap.numListed(), 0);
      assert.equal(heap.add(9, 1, 1, window), true);
      assert.equal(heap.size, 4);
      assert.deepEqual(
        heap.values().map((t) => t.key),
        [2, 3, 4, 1],
      );
      const second = new TimerHeap<{ start: number }>((w) => `w${w.start}`);
      for (const key of [1, 2, 3]) second.addNew(9, key, key, window);
      assert.equal(second.remove(9, 2, other), true);
      assert.equal(second.remove(9, 2, window), false);
      assert.deepEqual([second.poll()!.key, second.poll()!.key, second.poll()], [1, 3, undefined]);
    });

    it('lists a key only beside timers of the same namespace object, a plain key and a namespace', () => {
      const heap = new TimerHeap<{ start: number } | undefined>((w) =>
        w === undefined ? 'void' : `w${w.start}`,
      );
      const composite = { user: 7 };
      heap.addNew(9, 1, 1, window);
      heap.addNew(9, 2, 2, other); // same key, other object: the Map form, the timer kept as registered
      heap.addNew(9, composite, '7', window);
      heap.addNew(9, 3, 3, window);
      heap.addNew(5, 4, 4, undefined);
      heap.addNew(5, 5, 5, window);
      assert.equal(heap.numListed(), 0, 'neither timestamp kept a list');
      const timers = heap.values();
      assert.deepEqual(
        timers.map((t) => [t.timestamp, t.key, t.normalizedKey]),
        [
          [5, 4, 4],
          [5, 5, 5],
          [9, 1, 1],
          [9, 2, 2],
          [9, composite, '7'],
          [9, 3, 3],
        ],
      );
      assert.equal(timers[0]!.namespace, undefined);
      assert.equal(timers[3]!.namespace, other);
      assert.equal(timers[4]!.namespace, window);
      assert.equal(heap.add(5, 4, 4, undefined), false, 'an undefined namespace is a timer too');
      heap.addNew(2, composite, '7', window); // a composite key first at a timestamp: no list either
      heap.addNew(2, 8, 8, window);
      assert.equal(heap.numListed(), 0);
      const polled = heap.poll()!;
      assert.deepEqual([polled.key, polled.normalizedKey], [composite, '7']);
    });

    it('polls a key list by key (pollListed) as poll does, and answers undefined for any other timers', () => {
      // Against a sorted list: pollListed of the head's timestamp and namespace, when the head is a key list, takes
      // the timer poll would; of another timestamp or namespace, or when the head is no key list, nothing.
      const op = fc.record({
        kind: fc.constantFrom('addNew', 'addNew', 'add', 'remove', 'poll', 'pollListed', 'pollListed'),
        ts: fc.integer({ min: 0, max: 6 }),
        key: fc.integer({ min: 0, max: 40 }),
        // Mostly one namespace, so that most timestamps keep their key list.
        ns: fc.constantFrom(0, 0, 0, 0, 0, 0, 0, 1),
        miss: fc.constantFrom('none', 'none', 'timestamp', 'namespace'),
      });
      let listedPolls = 0;
      assertProperty(
        fc.property(fc.array(op, { minLength: 20, maxLength: 300 }), (ops) => {
          const heap = new TimerHeap<number>();
          let reference: { ts: number; key: number; ns: number; seq: number }[] = [];
          let seq = 0;
          const next = () => {
            reference.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
            return reference[0];
          };
          for (const o of ops) {
            const exists = reference.some((t) => t.ts === o.ts && t.key === o.key && t.ns === o.ns);
            if (o.kind === 'addNew' || o.kind === 'add') {
              if (o.kind === 'addNew' && !exists) heap.addNew(o.ts, o.key, o.key, o.ns);
              else assert.equal(heap.add(o.ts, o.key, o.key, o.ns), !exists);
              if (!exists) reference.push({ ts: o.ts, key: o.key, ns: o.ns, seq: seq++ });
            } else if (o.kind === 'remove') {
              reference = reference.filter((t) => !(t.ts === o.ts && t.key === o.key && t.ns === o.ns));
              assert.equal(heap.remove(o.ts, o.key, o.ns), exists);
            } else if (o.kind === 'poll') {
              const expected = next();
              const got = heap.poll();
              assert.deepEqual(got && [got.timestamp, got.key], expected && [expected.ts, expected.key]);
              if (expected !== undefined) reference.shift();
            } else {
              const namespace = heap.headListNamespace();
              const expected = next();
              if (namespace === undefined) {
                assert.equal(heap.pollListed(expected?.ts ?? 0, expected?.ns ?? 0), undefined);
                continue;
              }
              assert.equal(namespace, expected!.ns);
              const ts = heap.peekTimestamp()!;
              if (o.miss !== 'none') {
                const size = heap.size;
                const got =
                  o.miss === 'timestamp'
                    ? heap.pollListed(ts + 1, namespace)
                    : heap.pollListed(ts, 1 - namespace);
                assert.equal(got, undefined);
                assert.equal(heap.size, size);
                continue;
              }
              assert.equal(heap.pollListed(ts, namespace), expected!.key);
              reference.shift();
              listedPolls++;
            }
            assert.equal(heap.size, reference.length);
          }
          next();
          assert.deepEqual(
            heap.values().map((t) => [t.timestamp, t.key, t.namespace]),
            reference.map((t) => [t.ts, t.key, t.ns]),
          );
        }),
        { numRuns: 300 },
      );
      assert.ok(listedPolls > 1000, `${listedPolls} timers polled by key`);
    });

    it('polls no key list of a heap with marks', () => {
      const heap = new TimerHeap<{ timerMark: number }>();
      const session = { timerMark: 0 };
      heap.retireMovedTimersLazily();
      heap.add(9, 1, 1, session);
      assert.equal(heap.headListNamespace(), undefined);
      assert.equal(heap.pollListed(9, session), undefined);
      assert.equal(heap.size, 1);
    });

    it('costs an array slot per timer where add costs a Map entry', () => {
      setFlagsFromString('--expose-gc');
      const collectGarbage = runInNewContext('gc') as () => void;
      const timers = 200_000;
      const bytesPerTimer = (fill: (heap: TimerHeap<object>) => void): number => {
        collectGarbage();
        const before = process.memoryUsage().heapUsed;
        const heap = new TimerHeap<object>();
        fill(heap);
        collectGarbage();
        const bytes = (process.memoryUsage().heapUsed - before) / timers;
        assert.equal(heap.size, timers);
        return bytes;
      };
      const listed = bytesPerTimer((heap) => {
        for (let key = 0; key < timers; key++) heap.addNew(1999, key, key, window);
      });
      const mapped = bytesPerTimer((heap) => {
        for (let key = 0; key < timers; key++) heap.add(1999, key, key, window);
      });
      assert.ok(listed < 14, `${listed.toFixed(1)} bytes per listed timer`);
      assert.ok(
        mapped > 2 * listed,
        `${mapped.toFixed(1)} bytes per timer in a Map, ${listed.toFixed(1)} listed`,
      );
    });
  });

  describe('a heap that retires moved timers lazily', () => {
    /** A namespace object of one key at one time, as a session's window: equal to others of its value. */
    class Marked {
      timerMark = 0;
      constructor(readonly value: number) {}
    }
    const lazyHeap = (): TimerHeap<Marked> => {
      const heap = new TimerHeap<Marked>(
        (n) => n.value,
        (a, b) => a.value === b.value,
      );
      heap.retireMovedTimersLazily();
      return heap;
    };

    it('answers every query as the heap that removes a moved timer at once, in every bucket form', () => {
      // The same operations on both heaps, with the same namespace objects: each object is bound to one key and one
      // timestamp (the move's promise), and two objects of a (timestamp, key) share a value, as a window restored
      // beside the one a key's set holds. Many keys a timestamp take pairs and the Map form; keys 0-2 are composite.
      const op = fc.record({
        kind: fc.constantFrom(
          'add',
          'add',
          'move',
          'move',
          'move',
          'remove',
          'poll',
          'peek',
          'fresh',
          'clear',
        ),
        ts: fc.integer({ min: 0, max: 2 }),
        to: fc.integer({ min: 0, max: 2 }),
        // Mostly a few keys, so that a retired timer meets its key's later timers; sometimes many (over 16 a time).
        key: fc.oneof(
          { weight: 4, arbitrary: fc.integer({ min: 0, max: 4 }) },
          { weight: 1, arbitrary: fc.integer({ min: 0, max: 40 }) },
        ),
        variant: fc.integer({ min: 0, max: 3 }),
        toVariant: fc.integer({ min: 0, max: 3 }),
      });
      assertProperty(
        // At least 100 operations: fast-check's default size would give arrays of about ten.
        fc.property(fc.array(op, { minLength: 100, maxLength: 400 }), (ops) => {
          const lazy = lazyHeap();
          const eager = new TimerHeap<Marked>(
            (n) => n.value,
            (a, b) => a.value === b.value,
          );
          const objects = new Map<string, Marked>();
          const object = (ts: number, key: number, variant: number): Marked => {
            const name = `${ts}:${key}:${variant}`;
            let found = objects.get(name);
            // Variants 0 and 2 are equal by value, and 1 and 3.
            if (found === undefined)
              objects.set(name, (found = new Marked(ts * 1000 + key * 10 + (variant % 2))));
            return found;
          };
          const keyOf = (key: number): unknown => (key < 3 ? `composite-${key}` : key);
          const same = (a: HeapTimer<Marked> | undefined, b: HeapTimer<Marked> | undefined): void => {
            assert.deepEqual(
              a && [a.timestamp, a.key, a.normalizedKey],
              b && [b.timestamp, b.key, b.normalizedKey],
            );
            assert.equal(a?.namespace, b?.namespace);
          };
          for (const o of ops) {
            const from = object(o.ts, o.key, o.variant);
            if (o.kind === 'add') {
              assert.equal(
                lazy.add(o.ts, keyOf(o.key), o.key, from),
                eager.add(o.ts, keyOf(o.key), o.key, from),
              );
            } else if (o.kind === 'fresh') {
              // addNew's promise: the timer is not queued.
              if (
                !eager
                  .values()
                  .some(
                    (t) =>
                      t.timestamp === o.ts && t.normalizedKey === o.key && t.namespace.value === from.value,
                  )
              ) {
                lazy.addNew(o.ts, keyOf(o.key), o.key, from);
                eager.addNew(o.ts, keyOf(o.key), o.key, from);
              }
            } else if (o.kind === 'move') {
              const to = object(o.to, o.key, o.toVariant);
              lazy.move(o.ts, from, o.to, keyOf(o.key), o.key, to);
              eager.move(o.ts, from, o.to, keyOf(o.key), o.key, to);
            } else if (o.kind === 'remove') {
              assert.equal(lazy.remove(o.ts, o.key, from), eager.remove(o.ts, o.key, from));
            } else if (o.kind === 'poll') {
              same(lazy.poll(), eager.poll());
            } else if (o.kind === 'peek') {
              assert.equal(lazy.peekTimestamp(), eager.peekTimestamp());
              same(lazy.peek(), eager.peek());
            } else if (o.ts === 0 && o.key === 0) {
              lazy.clear();
              eager.clear();
            }
            assert.equal(lazy.size, eager.size);
          }
          const listed = lazy.values();
          const expected = eager.values();
          assert.equal(listed.length, expected.length);
          listed.forEach((t, i) => same(t, expected[i]));
          for (let t = eager.poll(); t !== undefined; t = eager.poll()) same(lazy.poll(), t);
          assert.equal(lazy.poll(), undefined);
          assert.equal(lazy.size, 0);
        }),
        { numRuns: 150 },
      );
    });

    it("retires a session's moved timer in place: the old bucket is not searched, and a poll drops it", () => {
      const heap = lazyHeap();
      const first = new Marked(1);
      const grown = new Marked(2);
      const other = new Marked(3);
      heap.add(10, 7, 7, first);
      heap.add(10, 8, 8, other);
      assert.equal(first.timerMark, 1); // queued once
      heap.move(10, first, 20, 7, 7, grown);
      assert.equal(first.timerMark, 3); // retired, still in the bucket of 10
      assert.equal(heap.size, 2);
      assert.deepEqual(
        heap.values().map((t) => [t.timestamp, t.key, t.namespace.value]),
        [
          [10, 8, 3],
          [20, 7, 2],
        ],
      );
      assert.equal(heap.remove(10, 7, first), false);
      assert.equal(heap.poll()?.namespace, other);
      assert.equal(heap.poll()?.namespace, grown);
      assert.equal(first.timerMark, 0); // dropped by the poll that reached it
      assert.equal(heap.poll(), undefined);
      // A timer the object shares with another is removed eagerly.
      heap.add(30, 7, 7, grown);
      heap.add(31, 7, 7, grown);
      assert.equal(grown.timerMark, 2);
      heap.move(30, grown, 40, 7, 7, first);
      assert.deepEqual(
        heap.values().map((t) => [t.timestamp, t.namespace.value]),
        [
          [31, 2],
          [40, 1],
        ],
      );
    });
  });
});
