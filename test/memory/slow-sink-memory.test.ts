// A fast source into a slow sink: backpressure bounds the records in flight, so the heap stays flat as records pass.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { AsyncSink, GeneratorSource, StreamExecutionEnvironment } from '../../src/index.ts';

interface Ev {
  id: number;
  key: number;
  pad: string;
}

const COUNT = 300_000;
const BUFFERED = 5_000;
const SAMPLE_EVERY = 25_000;

describe('fast source, slow sink', () => {
  it('keeps at most the sink buffer plus one source batch in flight, and the heap flat over 300,000 records', async () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    let emitted = 0;
    let acknowledged = 0;
    let maxInFlight = 0;
    const heap: number[] = [];
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    env
      .fromSource(
        // About 150 bytes a record, emitted as fast as the source may: 1,000 per poll.
        GeneratorSource.of(COUNT, (i): Ev => ({ id: i, key: i % 100, pad: `${i}`.padEnd(120, '.') })),
        undefined,
        'fast',
      )
      .map((e) => {
        emitted++;
        return e;
      })
      .sinkTo(
        AsyncSink.of<Ev>({
          // Slow: each write of 100 records completes one event-loop turn later, at most 2 at once.
          write: (batch) =>
            new Promise<void>((resolve) =>
              setImmediate(() => {
                maxInFlight = Math.max(maxInFlight, emitted - acknowledged);
                acknowledged += batch.length;
                if (acknowledged % SAMPLE_EVERY === 0) {
                  collectGarbage();
                  heap.push(process.memoryUsage().heapUsed);
                }
                resolve();
              }),
            ),
          maxBatchSize: 100,
          maxInFlightRequests: 2,
          maxBufferedRequests: BUFFERED,
        }),
        'slow',
      );
    await env.execute('fast source, slow sink');
    assert.equal(acknowledged, COUNT);
    // The criterion that keeps memory bounded: the source stops while the sink holds BUFFERED records; it may
    // finish the batch it is emitting (1,000 records) before it stops.
    assert.ok(maxInFlight <= BUFFERED + 1_000, `${maxInFlight} records in flight`);
    assert.equal(heap.length, COUNT / SAMPLE_EVERY);
    // Flat: between the first samples (code and JIT warming up) and the last (the job draining at its end), the heap
    // after a collection moves by less than the size of 10,000 records while 225,000 records pass. Unbounded
    // buffering would grow it by about 35 MB.
    const steady = heap.slice(2, -1);
    const spread = Math.max(...steady) - Math.min(...steady);
    assert.ok(
      spread < 10_000 * 150,
      `heap after GC per ${SAMPLE_EVERY} records (MB): ${heap.map((h) => (h / 2 ** 20).toFixed(1)).join(', ')}`,
    );
  });
});
