// ComputationState: field-wise equality (Flink's ComputationState.equals) and the queue order by first event.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compareComputationStates,
  computationStateEquals,
  createStartState,
  createState,
} from './computation-state.ts';
import {
  newSharedBufferEvent,
  newSharedBufferNode,
  type SharedBufferEvent,
  type SharedBufferNode,
} from './shared-buffer/shared-buffer.ts';

const event = (id: number, timestamp: number): SharedBufferEvent<string> =>
  newSharedBufferEvent(id, timestamp, `e${id}`, 1);
const node = (e: SharedBufferEvent<string>): SharedBufferNode<string> => newSharedBufferNode(e, 'a', 1, null);

describe('ComputationState', () => {
  it('a start state waits with version 1, no entry, no first event and -1 timestamps', () => {
    assert.deepEqual(createStartState('start'), {
      currentStateName: 'start',
      version: [1],
      previousBufferEntry: null,
      startTimestamp: -1,
      previousTimestamp: -1,
      startEventId: null,
    });
    assert.deepEqual(createStartState('start', [3]).version, [3]);
  });

  it('two distinct objects with equal fields are equal; each field that differs makes them unequal', () => {
    const e1 = event(0, 10);
    const n1 = node(e1);
    const base = () => createState('b', n1, [1, 0], 10, 12, e1);
    assert.equal(computationStateEquals(base(), base()), true);
    // an equal copy of the start event (same id and timestamp) is the same event id
    assert.equal(computationStateEquals(base(), createState('b', n1, [1, 0], 10, 12, event(0, 10))), true);
    const variants = [
      createState('c', n1, [1, 0], 10, 12, e1),
      createState('b', node(e1), [1, 0], 10, 12, e1),
      createState('b', null, [1, 0], 10, 12, e1),
      createState('b', n1, [1, 1], 10, 12, e1),
      createState('b', n1, [1, 0, 0], 10, 12, e1),
      createState('b', n1, [1, 0], 11, 12, e1),
      createState('b', n1, [1, 0], 10, 13, e1),
      createState('b', n1, [1, 0], 10, 12, event(1, 10)),
      createState('b', n1, [1, 0], 10, 12, event(0, 11)),
      createState('b', n1, [1, 0], 10, 12, null),
    ];
    for (const v of variants) {
      assert.equal(computationStateEquals(base(), v), false);
      assert.equal(computationStateEquals(v, base()), false);
    }
    const s = base();
    assert.equal(computationStateEquals(s, s), true);
  });

  it('orders by first event (timestamp, then id), start states last and equal among themselves', () => {
    const early = createState('b', null, [1, 0], 5, 5, event(3, 5));
    const late = createState('b', null, [2, 0], 7, 7, event(1, 7));
    const sameTsLaterId = createState('b', null, [3, 0], 5, 5, event(4, 5));
    const start = createStartState('a');
    assert.equal(compareComputationStates(early, late), -1);
    assert.equal(compareComputationStates(late, early), 1);
    assert.equal(compareComputationStates(early, sameTsLaterId), -1);
    assert.equal(compareComputationStates(sameTsLaterId, early), 1);
    assert.equal(compareComputationStates(early, early), 0);
    assert.equal(compareComputationStates(start, early), 1);
    assert.equal(compareComputationStates(early, start), -1);
    assert.equal(compareComputationStates(start, createStartState('b')), 0);
  });
});
