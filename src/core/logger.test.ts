// The default logger: structured text and JSON lines, levels, and what reaches the stream.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from './logger.ts';

function capture(): { lines: string[]; stream: { write(text: string): boolean } } {
  const lines: string[] = [];
  return { lines, stream: { write: (text) => lines.push(text) > 0 } };
}

describe('createLogger', () => {
  it('writes text lines: time, level, message, then the fields as key=value', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ stream, format: 'text', level: 'info' });
    logger.warn(
      { operator: 'counts', checkpointId: 7, reason: 'disk full', skipped: undefined },
      'checkpoint 7 failed',
    );
    assert.equal(lines.length, 1);
    assert.match(
      lines[0]!,
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z WARN weir: checkpoint 7 failed operator=counts checkpointId=7 reason="disk full"\n$/,
    );
  });

  it('writes nothing below its level', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ stream, level: 'warn' });
    logger.trace({}, 'a');
    logger.debug({}, 'b');
    logger.info({}, 'c');
    logger.warn({}, 'd');
    logger.error({}, 'e');
    assert.deepEqual(
      lines.map((l) => l.replace(/^\S+ /, '')),
      ['WARN weir: d\n', 'ERROR weir: e\n'],
    );
  });

  it("writes JSON lines with pino's numeric levels, errors as their message", () => {
    const { lines, stream } = capture();
    const logger = createLogger({ stream, format: 'json', level: 'trace' });
    logger.error({ operator: 'parse', error: new Error('bad line') }, 'record failed');
    logger.trace({}, 'detail');
    const [first, second] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(typeof first!.time, 'number');
    assert.deepEqual(
      { ...first, time: 0 },
      { level: 50, time: 0, msg: 'record failed', operator: 'parse', error: 'bad line' },
    );
    assert.deepEqual({ ...second, time: 0 }, { level: 10, time: 0, msg: 'detail' });
  });
});
