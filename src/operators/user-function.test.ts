// A user function's life cycle: open and close reach function objects only, and each subtask gets its own copy.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RuntimeContext } from '../core/runtime-context.ts';
import { closeFunction, instantiateFunction, openFunction } from './user-function.ts';

const ctx = { subtaskIndex: 3 } as RuntimeContext;

describe('openFunction / closeFunction', () => {
  it('call open with the runtime context and close on a function object, and return what they return', () => {
    const calls: string[] = [];
    const opened = Promise.resolve();
    const fn = {
      open(c: RuntimeContext) {
        calls.push(`open ${c.subtaskIndex}`);
        return opened;
      },
      close() {
        calls.push('close');
        return 'closed';
      },
    };
    assert.equal(openFunction(fn, ctx), opened);
    assert.equal(closeFunction(fn), 'closed');
    assert.deepEqual(calls, ['open 3', 'close']);
  });

  it('leave plain functions (even with open/close properties), null and objects without the methods alone', () => {
    const calls: string[] = [];
    const plain = Object.assign(() => 1, {
      open: () => calls.push('open'),
      close: () => calls.push('close'),
    });
    for (const fn of [plain, null, undefined, {}, { open: 'no', close: 1 }]) {
      assert.equal(openFunction(fn, ctx), undefined);
      assert.equal(closeFunction(fn), undefined);
    }
    assert.deepEqual(calls, []);
  });
});

describe('instantiateFunction', () => {
  it('copies a function object: own fields, same prototype, a distinct object', () => {
    class Counter {
      count = 0;
      bump(): number {
        return ++this.count;
      }
    }
    const original = new Counter();
    const copy = instantiateFunction(original);
    assert.notEqual(copy, original);
    assert.ok(copy instanceof Counter);
    copy.bump();
    assert.equal(copy.count, 1);
    assert.equal(original.count, 0);
  });

  it('returns plain functions and null as they are', () => {
    const fn = (x: number) => x;
    assert.equal(instantiateFunction(fn), fn);
    assert.equal(instantiateFunction(null), null);
  });
});
