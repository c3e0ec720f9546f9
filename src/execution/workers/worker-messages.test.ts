// Errors crossing threads: a worker's error arrives on the main thread as the same class, with its fields and causes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError, JobExecutionError, MalformedRecordError, WeirError } from '../../core/errors.ts';
import { AsyncTimeoutError } from '../../core/async-timeout-error.ts';
import { deserializeError, serializeError } from './worker-messages.ts';

/** What the main thread sees of `error` thrown in a worker (sent as a structured clone of its serialized form). */
const across = (error: unknown): Error => deserializeError(structuredClone(serializeError(error)));

describe('errors across threads', () => {
  it('rebuilds a job failure with its location and its cause, each as its own class with its fields', () => {
    const parse = new SyntaxError('Unexpected token } in JSON at position 7');
    const malformed = new MalformedRecordError('/data/in.jsonl', 2, '{"a": }', parse);
    const location = { operator: 'read', subtask: 1, parallelism: 2, record: '{"a": }' };
    const error = across(new JobExecutionError(location, malformed));
    assert.ok(error instanceof JobExecutionError);
    assert.deepEqual(error.location, location);
    assert.equal(
      error.message,
      `Operator 'read' (subtask 2/2) failed while processing record {"a": }: Malformed record at /data/in.jsonl:2: Unexpected token } in JSON at position 7 — {"a": }`,
    );
    const cause = error.cause;
    assert.ok(cause instanceof MalformedRecordError);
    assert.deepEqual([cause.file, cause.line, cause.text], ['/data/in.jsonl', 2, '{"a": }']);
    assert.equal(cause.name, 'MalformedRecordError');
    assert.ok(cause.cause instanceof SyntaxError);
    assert.equal(cause.cause.message, 'Unexpected token } in JSON at position 7');
  });

  it("keeps Weir's classes and the built-in ones; any other class arrives as a WeirError of the same name", () => {
    const timeout = across(new AsyncTimeoutError(10));
    assert.ok(timeout instanceof AsyncTimeoutError);
    assert.equal(timeout.timeoutMs, 10);
    assert.ok(across(new ConfigurationError('bad option')) instanceof ConfigurationError);
    assert.ok(across(new TypeError('x is not a function')) instanceof TypeError);
    class ConnectionLost extends Error {
      override name = 'ConnectionLost';
    }
    const other = across(new ConnectionLost('socket closed'));
    assert.ok(other instanceof WeirError);
    assert.deepEqual([other.name, other.message], ['ConnectionLost', 'socket closed']);
    const thrown = across('a string was thrown');
    assert.deepEqual([thrown.name, thrown.message], ['Error', 'a string was thrown']);
  });
});
