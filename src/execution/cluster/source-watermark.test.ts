// The source watermark a cluster task commits as offset metadata: read back as written, bad text named.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeSourceWatermark,
  encodeSourceWatermark,
  SourceWatermarkDecodeError,
} from './source-watermark.ts';

const decode = (text: string) => decodeSourceWatermark(text, 'input', 3, 'job-task-0_3');

describe('source watermark offset metadata', () => {
  it('reads back what was written, before the first watermark too', () => {
    assert.equal(
      encodeSourceWatermark({ watermark: 41_999, idle: false }),
      '{"weir":1,"watermark":41999,"idle":false}',
    );
    assert.deepEqual(decode(encodeSourceWatermark({ watermark: 41_999, idle: true })), {
      watermark: 41_999,
      idle: true,
    });
    assert.deepEqual(decode(encodeSourceWatermark({ watermark: Number.NEGATIVE_INFINITY, idle: false })), {
      watermark: Number.NEGATIVE_INFINITY,
      idle: false,
    });
  });

  it('names the partition, the task and the reason when the text is not a source watermark', () => {
    const cases: [string, string][] = [
      ['{', 'not JSON'],
      ['7', 'not an object'],
      ['{"weir":2,"watermark":1,"idle":false}', 'version 2, this version reads 1'],
      ['{"weir":1,"watermark":"1","idle":false}', 'the watermark is neither a number nor null'],
      ['{"weir":1,"watermark":1,"idle":0}', 'idle is not true or false'],
    ];
    for (const [text, reason] of cases)
      assert.throws(
        () => decode(text),
        (error: unknown) =>
          error instanceof SourceWatermarkDecodeError &&
          error.message.startsWith(
            `The metadata committed with input-3 for task 'job-task-0_3' is not a source watermark: ${reason}`,
          ),
        text,
      );
  });
});
