// checkpointConfig: the defaults of enableCheckpointing and the errors naming each bad value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError } from '../core/errors.ts';
import { checkpointConfig, type CheckpointingOptions } from './checkpoint-config.ts';

/** Asserts `checkpointConfig(interval, options)` throws a ConfigurationError with exactly `message`. */
function rejects(interval: number, options: CheckpointingOptions, message: string): void {
  assert.throws(
    () => checkpointConfig(interval, options),
    (e: unknown) => e instanceof ConfigurationError && e.message === message,
  );
}

describe('checkpointConfig', () => {
  it("fills in Flink's defaults: 3 retained, 60 s timeout, one at a time, no failure tolerated", () => {
    assert.deepEqual(checkpointConfig(1, { storage: '/chk' }), {
      intervalMs: 1,
      storage: '/chk',
      retained: 3,
      timeoutMs: 60_000,
      maxConcurrent: 1,
      tolerableFailures: 0,
      listener: undefined,
    });
  });

  it('keeps the values given, at their lower limits', () => {
    const listener = () => {};
    assert.deepEqual(
      checkpointConfig(250, {
        storage: 'chk',
        mode: 'exactly-once',
        retained: 1,
        timeoutMs: 1,
        maxConcurrent: 1,
        tolerableFailures: 0,
        listener,
      }),
      {
        intervalMs: 250,
        storage: 'chk',
        retained: 1,
        timeoutMs: 1,
        maxConcurrent: 1,
        tolerableFailures: 0,
        listener,
      },
    );
    const config = checkpointConfig(10, {
      storage: 'chk',
      retained: 5,
      timeoutMs: 30,
      maxConcurrent: 2,
      tolerableFailures: 4,
    });
    assert.deepEqual(
      [config.retained, config.timeoutMs, config.maxConcurrent, config.tolerableFailures],
      [5, 30, 2, 4],
    );
  });

  it('rejects an interval below 1 ms or not finite', () => {
    for (const interval of [0, 0.5, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      rejects(interval, { storage: 'chk' }, `The checkpoint interval must be at least 1 ms, got ${interval}`);
    }
  });

  it('needs a storage directory', () => {
    const message = 'enableCheckpointing needs a storage directory: { storage: "/path/to/checkpoints" }';
    rejects(10, undefined as unknown as CheckpointingOptions, message);
    rejects(10, {} as CheckpointingOptions, message);
    rejects(10, { storage: '' }, message);
    rejects(10, { storage: 5 } as unknown as CheckpointingOptions, message);
  });

  it('supports exactly-once only', () => {
    rejects(
      10,
      { storage: 'chk', mode: 'at-least-once' } as unknown as CheckpointingOptions,
      "Checkpointing mode 'at-least-once' is not supported; use 'exactly-once'",
    );
  });

  it('rejects options below their minimum or not integers, naming them', () => {
    rejects(10, { storage: 'chk', retained: 0 }, 'Checkpoint option retained must be an integer >= 1, got 0');
    rejects(
      10,
      { storage: 'chk', timeoutMs: 0 },
      'Checkpoint option timeoutMs must be an integer >= 1, got 0',
    );
    rejects(
      10,
      { storage: 'chk', maxConcurrent: 1.5 },
      'Checkpoint option maxConcurrent must be an integer >= 1, got 1.5',
    );
    rejects(
      10,
      { storage: 'chk', tolerableFailures: -1 },
      'Checkpoint option tolerableFailures must be an integer >= 0, got -1',
    );
  });
});
