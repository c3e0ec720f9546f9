// watchForStall: listens for the event loop emptying while a job runs, and stops listening when the watch ends.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { watchForStall } from './stall-watch.ts';

describe('watchForStall', () => {
  it('calls back when the event loop empties, until the watch ends', () => {
    const before = process.listeners('beforeExit');
    let stalls = 0;
    const end = watchForStall(() => stalls++);
    const added = process.listeners('beforeExit').filter((l) => !before.includes(l));
    assert.equal(added.length, 1);
    added[0]!(0);
    assert.equal(stalls, 1);
    end();
    assert.deepEqual(process.listeners('beforeExit'), before);
  });
});
