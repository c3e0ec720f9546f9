// The current key of a backend: its normalised form, its key group, and the error of state access without a key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValueStateDescriptor } from '../core/state-descriptor.ts';
import { KeyContext } from './key-context.ts';
import { KeyGroupRange } from './key-group-range.ts';
import { keyGroupFor, normalizeKey } from './key-hash.ts';
import { voidNamespaceSerializer } from './namespace.ts';
import { HeapStateBackend } from './state-backend.ts';

describe('KeyContext', () => {
  it('follows the current key: its normalised form and its key group', () => {
    const ctx = new KeyContext(128, 'op');
    const keys = ['user-1', 7, { b: 1, a: 2 }];
    for (const key of keys) {
      ctx.setCurrentKey(key);
      assert.equal(ctx.getCurrentKey(), key);
      assert.equal(ctx.currentNormalizedKey(), normalizeKey(key));
      assert.equal(ctx.getCurrentKeyGroup(), keyGroupFor(normalizeKey(key), 128));
      // Asked twice for the same key: the same group.
      assert.equal(ctx.getCurrentKeyGroup(), keyGroupFor(normalizeKey(key), 128));
    }
    ctx.setCurrentNormalizedKey(normalizeKey('a'), 'a');
    assert.deepEqual(
      [ctx.getCurrentKey(), ctx.currentNormalizedKey(), ctx.getCurrentKeyGroup()],
      ['a', 'a', keyGroupFor('a', 128)],
    );
  });

  it('after clearCurrentKey, state access fails naming the operator until a key is set again', () => {
    const message =
      "IllegalStateError: Operator 'op': no key set. Keyed state can only be read and written where there is a current key; on the broadcast side of a keyed broadcast function use ctx.applyToKeyedState(...)";
    const ctx = new KeyContext(128, 'op');
    ctx.setCurrentKey('k');
    ctx.clearCurrentKey();
    assert.equal(ctx.getCurrentKey(), undefined);
    assert.throws(
      () => ctx.currentNormalizedKey(),
      (e: unknown) => String(e) === message,
    );
    ctx.setCurrentKey('j');
    assert.equal(ctx.currentNormalizedKey(), 'j');
    ctx.clearCurrentKey();
    ctx.setCurrentNormalizedKey('i', 'i');
    assert.equal(ctx.currentNormalizedKey(), 'i');
    const unnamed = new KeyContext(128, undefined);
    unnamed.clearCurrentKey();
    assert.throws(
      () => unnamed.currentNormalizedKey(),
      (e: unknown) => String(e) === message.replace("'op'", "'operator'"),
    );
    // A state handle of a backend without a key fails the same way.
    const backend = new HeapStateBackend().createKeyedStateBackend({
      operatorName: 'counter',
      uid: 'counter-uid',
      subtaskIndex: 0,
      maxParallelism: 128,
      keyGroupRange: new KeyGroupRange(0, 127),
      clock: () => 0,
    });
    const v = backend.getOrCreateKeyedState(new ValueStateDescriptor<number>('v'), voidNamespaceSerializer);
    backend.setCurrentKey('k');
    v.update(1);
    backend.clearCurrentKey();
    assert.throws(
      () => v.value(),
      (e: unknown) => String(e) === message.replace("'op'", "'counter'"),
    );
  });
});
