// Watermark emission settings: the checks a user's mode and record count pass, with the defaults an environment
// starts from.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { ConfigurationError } from '../core/errors.ts';
import {
  checkAutoWatermarkRecords,
  checkWatermarkEmissionMode,
  DEFAULT_AUTO_WATERMARK_INTERVAL,
  DEFAULT_AUTO_WATERMARK_RECORDS,
} from './watermark-emission.ts';

describe('watermark emission settings', () => {
  it('accepts the two modes and refuses any other value by name', () => {
    assert.equal(checkWatermarkEmissionMode('deterministic'), 'deterministic');
    assert.equal(checkWatermarkEmissionMode('processing-time'), 'processing-time');
    for (const bad of ['Deterministic', 'event-time', '', undefined]) {
      assert.throws(
        () => checkWatermarkEmissionMode(bad),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          error.message ===
            `The watermark emission mode must be 'deterministic' or 'processing-time', got ${String(bad)}`,
      );
    }
  });

  it('accepts any positive safe integer as the record count, and nothing else', () => {
    assert.equal(checkAutoWatermarkRecords(1), 1);
    assert.equal(checkAutoWatermarkRecords(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1]) {
      assert.throws(
        () => checkAutoWatermarkRecords(bad),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          error.message ===
            `The number of records between periodic watermarks must be a positive integer, got ${bad}`,
      );
    }
  });

  it('gives a new environment deterministic emission every 100 records and a 200 ms interval', () => {
    assert.equal(DEFAULT_AUTO_WATERMARK_RECORDS, 100);
    assert.equal(DEFAULT_AUTO_WATERMARK_INTERVAL, 200);
    assert.deepEqual(StreamExecutionEnvironment.create().watermarkEmission, {
      mode: 'deterministic',
      intervalMs: 200,
      everyRecords: 100,
    });
    const env = StreamExecutionEnvironment.create({ autoWatermarkRecords: 7 }).setWatermarkEmission(
      'processing-time',
    );
    assert.deepEqual(env.watermarkEmission, { mode: 'processing-time', intervalMs: 200, everyRecords: 7 });
  });
});
