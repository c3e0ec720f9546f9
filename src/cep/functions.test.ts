// Which pattern functions also handle timed-out partial matches (Flink's `instanceof TimedOutPartialMatchHandler`).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isTimedOutPartialMatchHandler } from './functions.ts';

describe('isTimedOutPartialMatchHandler', () => {
  it('is true for an object with a processTimedOutMatch method, false for anything else', () => {
    class Handler {
      processMatch(): void {}
      processTimedOutMatch(): void {}
    }
    assert.equal(isTimedOutPartialMatchHandler(new Handler()), true);
    assert.equal(isTimedOutPartialMatchHandler({ processTimedOutMatch: () => {} }), true);
    assert.equal(isTimedOutPartialMatchHandler({ processMatch: () => {} }), false);
    assert.equal(isTimedOutPartialMatchHandler({ processTimedOutMatch: 1 }), false);
    // a select function is a plain function, even with such a property
    assert.equal(
      isTimedOutPartialMatchHandler(Object.assign(() => {}, { processTimedOutMatch: () => {} })),
      false,
    );
    assert.equal(isTimedOutPartialMatchHandler(null), false);
    assert.equal(isTimedOutPartialMatchHandler(undefined), false);
  });
});
