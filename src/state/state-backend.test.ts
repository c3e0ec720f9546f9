// The built-in state backends, the incremental-snapshot capability, the void namespace and the lost-class error.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeapKeyedStateBackend } from './heap/heap-keyed-state-backend.ts';
import { supportsIncrementalSnapshots } from './incremental-snapshot.ts';
import { KeyGroupRange } from './key-group-range.ts';
import { lostClassError } from './lost-class-error.ts';
import { VoidNamespace, voidNamespaceSerializer } from './namespace.ts';
import { HeapStateBackend, StateBackends } from './state-backend.ts';

describe('state backends', () => {
  it('the heap backend is the built-in one; it snapshots in full only', () => {
    assert.equal(StateBackends.heap().name, 'heap');
    assert.ok(StateBackends.heap() instanceof HeapStateBackend);
    const heap = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0);
    assert.equal(supportsIncrementalSnapshots(heap), false);
    assert.equal(supportsIncrementalSnapshots(undefined), false);
    assert.equal(supportsIncrementalSnapshots(Object.assign(heap, { snapshotIncremental: () => [] })), true);
  });

  it('plain keyed state lives in the one void namespace', () => {
    assert.equal(VoidNamespace, 0);
    assert.equal(voidNamespaceSerializer.key(VoidNamespace), 0);
  });

  it('the lost-class error says how to keep the class: a type for a value, a serializer for a field', () => {
    assert.equal(
      String(lostClassError('rides', 'enrich', { className: 'Ride', path: '' })),
      "IllegalStateError: State 'rides' of operator 'enrich' holds instances of class Ride, which a snapshot would restore as plain objects; declare the class on the descriptor (new ValueStateDescriptor('rides', { type: Ride }), likewise for list and map states) or give it a serializer",
    );
    assert.equal(
      String(lostClassError('rides', 'enrich', { className: 'Fare', path: '.fare' })),
      "IllegalStateError: State 'rides' of operator 'enrich' holds instances of class Fare at .fare, which a snapshot would restore as plain objects; give the descriptor a serializer that restores it",
    );
  });
});
