// A subtask's broadcast states: only declared ones exist, snapshots keep classes or fail naming them, restore replaces.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MapStateDescriptor } from '../core/state-descriptor.ts';
import type { TypeSerializer } from '../core/type-serializer.ts';
import { BroadcastStateStore } from './broadcast-state-store.ts';
import { HeapBroadcastState } from './heap-broadcast-state.ts';

class Rule {
  constructor(
    readonly limit: number,
    readonly extra?: unknown,
  ) {}
  allows(n: number): boolean {
    return n <= this.limit;
  }
}

class Limit {}

/** Serializes a map of numbers by hand (a serializer that is not structured clone keeps whatever it likes). */
const numbers: TypeSerializer<any> = {
  serialize: (map: Map<string, number>) => new TextEncoder().encode(JSON.stringify([...map])),
  deserialize: (bytes) => new Map(JSON.parse(new TextDecoder().decode(bytes)) as [string, number][]),
};

describe('BroadcastStateStore', () => {
  it('has only the declared states, and names the operator and the state asked for', () => {
    const rules = new MapStateDescriptor<string, number>('rules');
    const store = new BroadcastStateStore([rules], 'matcher');
    store.get(rules).put('a', 1);
    // Another descriptor object with the same name reaches the same state.
    assert.equal(store.get(new MapStateDescriptor<string, number>('rules')).get('a'), 1);
    assert.throws(
      () => store.get(undefined as never),
      /^IllegalStateError: Operator 'matcher': the requested broadcast state 'undefined' does not exist/,
    );
    assert.throws(
      () => store.get(new MapStateDescriptor<string, number>('other')),
      (e: unknown) =>
        String(e) ===
        "IllegalStateError: Operator 'matcher': the requested broadcast state 'other' does not exist. Check for typos in your state descriptor, or specify the state descriptor in the datastream.broadcast(...) call if you forgot to register it.",
    );
  });

  it('snapshots every state and restores into another subtask, replacing what it held', () => {
    const rules = new MapStateDescriptor<string, Rule>('rules', { type: Rule });
    const counts = new MapStateDescriptor<string, number>('counts', { serializer: numbers });
    const plain = new MapStateDescriptor<string, number[]>('plain');
    const store = new BroadcastStateStore([rules, counts, plain], 'op');
    store.get(rules).put('r', new Rule(5));
    store.get(counts).putAll([
      ['x', 1],
      ['y', 2],
    ]);
    store.get(plain).put('p', [1, 2]);
    const snapshot = store.snapshot();
    assert.deepEqual(Object.keys(snapshot.broadcastStates), ['rules', 'counts', 'plain']);
    assert.equal(new TextDecoder().decode(snapshot.broadcastStates.counts), '[["x",1],["y",2]]');

    // The restoring subtask declares one state more and one less; it held entries of its own before.
    const extra = new MapStateDescriptor<string, number>('extra');
    const other = new BroadcastStateStore([rules, counts, extra], 'op');
    other.get(counts).put('stale', 9);
    other.get(extra).put('e', 1);
    other.restore(snapshot);
    assert.equal(other.get(rules).get('r')!.allows(5), true);
    assert.deepEqual(
      [...other.get(counts).entries()],
      [
        ['x', 1],
        ['y', 2],
      ],
    );
    assert.deepEqual([...other.get(extra).entries()], [['e', 1]]);
    assert.throws(() => other.get(plain), /'plain' does not exist/);
  });

  it('leaves class instances to a serializer of their own', () => {
    const byHand: TypeSerializer<any> = {
      serialize: (map: Map<string, Rule>) =>
        new TextEncoder().encode(JSON.stringify([...map].map(([k, r]) => [k, r.limit]))),
      deserialize: (bytes) =>
        new Map(
          (JSON.parse(new TextDecoder().decode(bytes)) as [string, number][]).map(([k, l]) => [
            k,
            new Rule(l),
          ]),
        ),
    };
    const rules = new MapStateDescriptor<string, Rule>('rules', { serializer: byHand });
    const store = new BroadcastStateStore([rules], 'op');
    store.get(rules).put('r', new Rule(3));
    const other = new BroadcastStateStore([rules], 'op');
    other.restore(store.snapshot());
    assert.equal(other.get(rules).get('r')!.allows(4), false);
  });

  it('refuses to snapshot class instances structured clone would lose, naming state, operator and class', () => {
    const untyped = new MapStateDescriptor<string, Rule>('untyped');
    const store = new BroadcastStateStore([untyped], 'matcher');
    store.get(untyped).put('r', new Rule(1));
    assert.throws(
      () => store.snapshot(),
      (e: unknown) =>
        String(e).startsWith(
          "IllegalStateError: State 'untyped' of operator 'matcher' holds instances of class Rule, which a snapshot would restore as plain objects",
        ),
    );
    // A class given as the type is kept; an instance of another class in one of its fields is still refused.
    const typed = new MapStateDescriptor<string, Rule>('typed', { type: Rule });
    const nested = new BroadcastStateStore([typed], 'matcher');
    nested.get(typed).put('r', new Rule(1, new Date(0)));
    assert.doesNotThrow(() => nested.snapshot());
    nested.get(typed).put('r', new Rule(1, new Limit()));
    assert.throws(
      () => nested.snapshot(),
      (e: unknown) =>
        String(e) ===
        "IllegalStateError: State 'typed' of operator 'matcher' holds instances of class Limit at .extra, which a snapshot would restore as plain objects; give the descriptor a serializer that restores it",
    );
  });
});

describe('HeapBroadcastState', () => {
  it('reads and writes its map; the read-only view sees every change and has no mutators', () => {
    const state = new HeapBroadcastState<string, number>();
    const view = state.readOnly;
    state.put('a', 1);
    state.putAll([
      ['b', 2],
      ['c', 3],
    ]);
    state.remove('c');
    assert.deepEqual(
      [state.get('a'), state.contains('b'), state.contains('c'), state.size()],
      [1, true, false, 2],
    );
    assert.deepEqual([...state.keys()], ['a', 'b']);
    assert.deepEqual([...state.values()], [1, 2]);
    assert.deepEqual(
      [...state.immutableEntries()],
      [
        ['a', 1],
        ['b', 2],
      ],
    );
    assert.deepEqual(
      [view.get('b'), view.contains('a'), view.contains('z'), view.size(), [...view.immutableEntries()]],
      [
        2,
        true,
        false,
        2,
        [
          ['a', 1],
          ['b', 2],
        ],
      ],
    );
    assert.deepEqual(Object.keys(view).sort(), ['contains', 'get', 'immutableEntries', 'size']);
    assert.equal(Object.isFrozen(view), true);
    state.clear();
    assert.deepEqual([view.size(), [...state.entries()]], [0, []]);
  });
});
