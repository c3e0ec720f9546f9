// DueBuffer: entries by due time, in the order they were added, whatever the times' slots in its table.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DueBuffer,
  entryKind,
  MARKED_ELEMENT,
  PLAIN_ELEMENT,
  STARTING_ELEMENT,
  TIMEOUT,
  TIMEOUT_ENTRY,
  type DueBucket,
} from './due-buffer.ts';

/**
 * Each bucket as `time: entries`, an element as `key=element`, one marked as starting something as `key=*element`, a
 * timeout as `!holder#seq`.
 */
function show(buckets: readonly DueBucket[]): string[] {
  return buckets.map((b) => {
    const parts: string[] = [];
    let i = 0;
    while (i < b.count) {
      if (b.entries[i] === TIMEOUT_ENTRY) {
        parts.push(`!${String(b.entries[i + 1])}#${String(b.entries[i + 2])}`);
        i += 3;
      } else if (b.entries[i] === STARTING_ELEMENT) {
        parts.push(`${String(b.entries[i + 2])}=*${String(b.entries[i + 1])}`);
        i += 3;
      } else {
        parts.push(`${String(b.entries[i + 1])}=${String(b.entries[i])}`);
        i += 2;
      }
    }
    return `${b.timestamp}: ${parts.join(' ')}`;
  });
}

describe('DueBuffer', () => {
  it('takes the buckets due at or before a time in time order, entries in the order they were added', () => {
    const buffer = new DueBuffer();
    assert.equal(buffer.firstTime(), Number.POSITIVE_INFINITY);
    buffer.addElement(7, 'a', 'p');
    buffer.addElement(5, 'b', 'q');
    buffer.addTimeout(7, 'r', 0);
    buffer.addElement(7, 'c', 'q');
    buffer.addElement(9, 'd', 'p');
    buffer.addTimeout(5, 's', 1);
    assert.equal(buffer.firstTime(), 5);
    assert.deepEqual(show(buffer.buckets()), ['5: q=b !s#1', '7: p=a !r#0 q=c', '9: p=d']);
    const taken: DueBucket[] = [];
    buffer.takeUpTo(4, taken);
    assert.deepEqual(taken, []);
    buffer.takeUpTo(7, taken);
    assert.deepEqual(show(taken), ['5: q=b !s#1', '7: p=a !r#0 q=c']);
    assert.equal(buffer.firstTime(), 9);
    // a time added after a take gets a bucket of its own, in order with those left
    buffer.addElement(8, 'e', 'q');
    buffer.takeUpTo(100, taken);
    assert.deepEqual(show(taken), ['8: q=e', '9: p=d']);
    assert.equal(buffer.firstTime(), Number.POSITIVE_INFINITY);
    assert.deepEqual(buffer.buckets(), []);
  });

  it('keeps an element marked as starting something in order with the others, in three slots', () => {
    const buffer = new DueBuffer();
    buffer.addElement(3, 'a', 'p');
    buffer.addStartingElement(3, 'b', 'q');
    buffer.addTimeout(3, 'r', 0);
    buffer.addStartingElement(2, 'c', 'p');
    buffer.addElement(3, 'd', 'q');
    const taken: DueBucket[] = [];
    buffer.takeUpTo(3, taken);
    assert.deepEqual(show(taken), ['2: p=*c', '3: p=a q=*b !r#0 q=d']);
    assert.deepEqual(
      taken.map((b) => b.count),
      [3, 10],
    );
  });

  it('keeps times that share a slot of its table apart, and frees the slot for a later time', () => {
    const buffer = new DueBuffer();
    // 4096 slots: 1, 4097 and 8193 share slot 1
    buffer.addElement(4097, 'a', 'p');
    buffer.addElement(1, 'b', 'p');
    buffer.addElement(8193, 'c', 'p');
    buffer.addElement(4097, 'd', 'q');
    buffer.addElement(1, 'e', 'q');
    buffer.addElement(2, 'f', 'q');
    buffer.addElement(4097, 'g', 'r');
    const taken: DueBucket[] = [];
    buffer.takeUpTo(4097, taken);
    assert.deepEqual(show(taken), ['1: p=b q=e', '2: q=f', '4097: p=a q=d r=g']);
    buffer.addElement(8193, 'h', 'q');
    buffer.addElement(12289, 'i', 'q');
    buffer.takeUpTo(20000, taken);
    assert.deepEqual(show(taken), ['8193: p=c q=h', '12289: q=i']);
  });

  it('sizes a new bucket for its first entry and grows it as entries come', () => {
    const buffer = new DueBuffer();
    buffer.addTimeout(3, 'r', 0);
    buffer.addElement(4, 'a', 'p');
    const [timeout, element] = buffer.buckets();
    assert.equal(timeout!.entries.length, 3);
    assert.equal(element!.entries.length, 2);
    for (let i = 0; i < 100; i++) buffer.addElement(4, i, 'p');
    assert.equal(buffer.buckets()[1]!.count, 202);
  });

  it('lists every bucket in time order, whatever the order of its heap', () => {
    const buffer = new DueBuffer();
    for (const time of [1, 5, 2, 6, 7, 3]) buffer.addElement(time, time, 'p');
    assert.deepEqual(show(buffer.buckets()), ['1: p=1', '2: p=2', '3: p=3', '5: p=5', '6: p=6', '7: p=7']);
  });

  it('tells an entry by its first slot: the markers by identity, anything else an element (a symbol too)', () => {
    assert.equal(entryKind(TIMEOUT_ENTRY), TIMEOUT);
    assert.equal(entryKind(STARTING_ELEMENT), MARKED_ELEMENT);
    for (const element of [
      Symbol('timeout'),
      Symbol('starting element'),
      Symbol.iterator,
      'timeout',
      0,
      2,
      null,
      undefined,
      {},
    ]) {
      assert.equal(entryKind(element), PLAIN_ELEMENT, String(element));
    }
    assert.equal(new Set([PLAIN_ELEMENT, MARKED_ELEMENT, TIMEOUT]).size, 3);
  });
});
