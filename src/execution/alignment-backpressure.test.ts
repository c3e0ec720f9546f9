// Alignment under pressure: a fast source waits while its channel is blocked, so checkpoints complete in bounded memory.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { GeneratorSource } from '../connectors/generator-source.ts';
import type { Sink } from '../core/sink.ts';
import type { CheckpointEvent } from './checkpoint-config.ts';

const root = mkdtempSync(join(tmpdir(), 'weir-alignment-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('alignment backpressure', () => {
  it('holds an unthrottled source back while its channel is blocked; every checkpoint completes', async () => {
    const events: CheckpointEvent[] = [];
    const seen = new Set<number>();
    let records = 0;
    const counting: Sink<number> = {
      createWriter: () => ({
        write(value) {
          records++;
          if (value < 0) seen.add(value);
        },
      }),
    };
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    env.enableCheckpointing(100, { storage: join(root, 'chk'), listener: (e) => events.push(e) });
    // Unthrottled: about a million records a second in batches of 1,000.
    const fast = env.fromSource(
      GeneratorSource.of(1_500_000, (i) => i),
      undefined,
      'fast',
    );
    // One record every 50 ms: a barrier waits up to 50 ms for this source's next batch boundary.
    const slow = env.fromSource(
      GeneratorSource.of(12, (i) => -1 - i, { ratePerSecond: 7 }),
      undefined,
      'slow',
    );
    fast.union(slow).sinkTo(counting, 'count');
    const result = await env.execute('pressure');
    const failed = events.filter((e) => e.type === 'failed');
    assert.deepEqual(failed, []);
    assert.ok(events.filter((e) => e.type === 'completed').length >= 3);
    assert.equal(records, 1_500_012);
    assert.equal(seen.size, 12);
    const sink = result.metrics.find((m) => m.name === 'count')!;
    assert.ok(sink.alignments >= 3, `${sink.alignments} alignments`);
    // An alignment waited; unthrottled, the fast source would have filled its blocked channel with thousands of
    // records meanwhile. Held back at its batch boundary, at most one batch is in flight.
    assert.ok(
      sink.peakAlignmentBufferedEvents <= 1_000,
      `${sink.peakAlignmentBufferedEvents} events buffered`,
    );
    assert.ok(
      sink.peakAlignmentBufferedBytes <= 64 * 1_000,
      `${sink.peakAlignmentBufferedBytes} bytes buffered`,
    );
  });
});
