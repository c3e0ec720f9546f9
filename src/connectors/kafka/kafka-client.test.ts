// callRetrying and isRetriable: which failed Kafka calls are made again (a coordinator or leader that moved) and which fail at once.
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import {
  callRetrying,
  clientErrorIn,
  isRetriable,
  KafkaError,
  type LibrdKafkaError,
} from './kafka-client.ts';
import { WeirError } from '../../core/errors.ts';

function librdkafkaError(code: number, flags: Partial<LibrdKafkaError> = {}): LibrdKafkaError {
  return Object.assign(new Error(`code ${code}`), { code, ...flags });
}

/** Lets every pending promise callback run (the retry loop's awaits between mocked timer ticks). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** A client call that fails with each of `errors` in turn, then succeeds with `result`; counts its tries. */
function failing<R>(errors: LibrdKafkaError[], result: R) {
  const calls = { tries: 0 };
  const run = (cb: (error: LibrdKafkaError | undefined, result: R) => void): void => {
    const error = errors[calls.tries++];
    cb(error, result);
  };
  return { calls, run };
}

describe('isRetriable', () => {
  it('retries a coordinator or leader that moved, a timeout, a transport failure, and what librdkafka calls retriable', () => {
    for (const code of [3, 5, 6, 7, 14, 15, 16, 19, 20, -185, -195])
      assert.equal(isRetriable(librdkafkaError(code)), true, `code ${code}`);
    assert.equal(isRetriable(librdkafkaError(48, { isRetriable: true })), true);
  });

  it('looks through the KafkaError that call() wraps around the client error', () => {
    const wrapped = new KafkaError('Kafka: x failed', { cause: librdkafkaError(16) });
    assert.equal(isRetriable(wrapped), true);
  });

  it('does not retry other errors, fatal ones (a fenced producer), or ones whose transaction must be aborted', () => {
    assert.equal(isRetriable(librdkafkaError(29)), false);
    assert.equal(isRetriable(librdkafkaError(-150, { isFatal: true })), false);
    assert.equal(isRetriable(librdkafkaError(16, { isFatal: true })), false);
    assert.equal(isRetriable(librdkafkaError(7, { isRetriable: true, isTxnRequiresAbort: true })), false);
    assert.equal(isRetriable(new Error('not from Kafka')), false);
  });
});

describe('clientErrorIn', () => {
  /** What the client hands over: librdkafka's code (also as errno) and where it arose. */
  const purged = Object.assign(new Error('Local: Purged in queue'), {
    code: -152,
    errno: -152,
    origin: 'local',
  });

  it('finds the client error under the errors that wrap it (an operator around a delivery failure)', () => {
    const delivery = new KafkaError("Task '0_1': a message was not delivered: Local: Purged in queue", {
      cause: purged,
    });
    const operator = new WeirError("Operator 'sink' failed", { cause: delivery });
    assert.equal(clientErrorIn(operator), purged);
    assert.equal(clientErrorIn(purged), purged);
  });

  it('finds none in a failure the client did not report: user code, a malformed marker, an error without cause', () => {
    assert.equal(
      clientErrorIn(new WeirError("Operator 'map' failed", { cause: new TypeError('x is undefined') })),
      undefined,
    );
    assert.equal(clientErrorIn(new KafkaError('Repartition marker at t-0@5 is not JSON')), undefined);
    assert.equal(
      clientErrorIn(Object.assign(new Error('coded, no origin'), { code: 3, errno: 3 })),
      undefined,
    );
    assert.equal(clientErrorIn(undefined), undefined);
    assert.equal(clientErrorIn('a string'), undefined);
  });

  it('stops on a cycle of causes', () => {
    const a: Error & { cause?: unknown } = new Error('a');
    a.cause = new Error('b', { cause: a });
    assert.equal(clientErrorIn(a), undefined);
  });
});

describe('callRetrying', () => {
  it('makes a call that failed with NOT_COORDINATOR again until it succeeds (a broker died)', async () => {
    const { calls, run } = failing([librdkafkaError(16), librdkafkaError(15)], 'offset 42');
    assert.equal(await callRetrying('reading the committed offset', run, 10_000, 1), 'offset 42');
    assert.equal(calls.tries, 3);
  });

  it('fails at once on an error that is not retriable, naming what was attempted', async () => {
    const { calls, run } = failing([librdkafkaError(29)], 'unused');
    await assert.rejects(
      callRetrying('reading the committed offset', run, 10_000, 1),
      (error: unknown) =>
        error instanceof KafkaError &&
        error.message === 'Kafka: reading the committed offset failed: code 29',
    );
    assert.equal(calls.tries, 1);
  });

  it('makes a call that used up its own timeout again, unless told not to (its client is taken as stuck)', async () => {
    const retried = failing([librdkafkaError(-185)], 'committed');
    assert.equal(await callRetrying('committing', retried.run, 10_000, 1), 'committed');
    assert.equal(retried.calls.tries, 2);
    const stuck = failing([librdkafkaError(-185)], 'unused');
    await assert.rejects(
      callRetrying('committing', stuck.run, 10_000, 1, false),
      (error: unknown) =>
        error instanceof KafkaError && error.message === 'Kafka: committing failed: code -185',
    );
    assert.equal(stuck.calls.tries, 1);
    // Other retriable errors are still retried.
    const moved = failing([librdkafkaError(16)], 'committed');
    assert.equal(await callRetrying('committing', moved.run, 10_000, 1, false), 'committed');
    assert.equal(moved.calls.tries, 2);
  });

  it('gives up after the timeout with the last error', async () => {
    // The clock and the retry pauses are mocked, so the tries are counted exactly, however busy the machine.
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    try {
      const { calls, run } = failing(
        Array.from({ length: 1_000 }, () => librdkafkaError(16)),
        'unused',
      );
      let outcome: unknown;
      void callRetrying('committing', run, 30, 5).then(
        () => (outcome = 'resolved'),
        (error: unknown) => (outcome = error),
      );
      for (let ms = 0; ms <= 40 && outcome === undefined; ms += 5) {
        await settle();
        mock.timers.tick(5);
      }
      await settle();
      assert.ok(
        outcome instanceof KafkaError && outcome.message === 'Kafka: committing failed: code 16',
        String(outcome),
      );
      // Tries at 0, 5, ..., 30 ms: the one at 30 fails with no time left for another.
      assert.equal(calls.tries, 7);
    } finally {
      mock.timers.reset();
    }
  });
});
