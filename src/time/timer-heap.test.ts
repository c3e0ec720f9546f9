// TimerHeap against a sorted-array reference on random operations (property test).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { TimerHeap } from './timer-heap.ts';

describe('TimerHeap', () => {
  it('polls like a de-duplicated, stably sorted list under random adds and removes', () => {
    const op = fc.record({
      kind: fc.constantFrom('add', 'add', 'remove', 'poll'),
      ts: fc.integer({ min: 0, max: 20 }),
      key: fc.integer({ min: 0, max: 4 }),
      ns: fc.integer({ min: 0, max: 1 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const heap = new TimerHeap<number>();
        let reference: { ts: number; key: number; ns: number; seq: number }[] = [];
        let seq = 0;
        for (const o of ops) {
          if (o.kind === 'add') {
            const exists = reference.some((t) => t.ts === o.ts && t.key === o.key && t.ns === o.ns);
            assert.equal(heap.add(o.ts, o.key, o.key, o.ns, o.ns), !exists);
            if (!exists) reference.push({ ts: o.ts, key: o.key, ns: o.ns, seq: seq++ });
          } else if (o.kind === 'remove') {
            const before = reference.length;
            reference = reference.filter((t) => !(t.ts === o.ts && t.key === o.key && t.ns === o.ns));
            assert.equal(heap.remove(o.ts, o.key, o.ns), reference.length < before);
          } else {
            reference.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
            const expected = reference.shift();
            const got = heap.poll();
            assert.deepEqual(got && [got.timestamp, got.key, got.namespace], expected && [expected.ts, expected.key, expected.ns]);
          }
          assert.equal(heap.size, reference.length);
        }
      }),
      { numRuns: 300 },
    );
  });
});
