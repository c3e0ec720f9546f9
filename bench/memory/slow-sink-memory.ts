// Memory benchmark: an unthrottled source into a slow asynchronous sink for a minute, with and without keyed windows.
// Isolates what backpressure bounds: RSS and heap are sampled every second and summarised per 10 s; a flat series
// means the records in flight are bounded. Run: node --import tsx bench/memory/slow-sink-memory.ts [--seconds 60]
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  AsyncSink,
  GeneratorSource,
  StreamExecutionEnvironment,
  Time,
  TumblingEventTimeWindows,
  WatermarkStrategy,
} from '../../src/index.ts';

interface Ev {
  id: number;
  key: number;
  ts: number;
  pad: string;
}

const i = process.argv.indexOf('--seconds');
const seconds = i >= 0 ? Number(process.argv[i + 1]) : 60;
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** A sink whose writes take a millisecond each, two at a time: far slower than the source. */
const slowSink = () =>
  AsyncSink.of<unknown>({
    write: () => new Promise<void>((resolve) => setTimeout(resolve, 1)),
    maxBatchSize: 100,
    maxInFlightRequests: 2,
    maxBufferedRequests: 10_000,
  });

async function run(shape: 'records' | 'windows'): Promise<void> {
  const env = StreamExecutionEnvironment.create({ parallelism: 1 });
  let written = 0;
  const events = env.fromSource(
    GeneratorSource.of(Infinity, (n): Ev => ({
      id: n,
      key: n % 10_000,
      ts: n,
      pad: `${n}`.padEnd(100, '.'),
    })),
    WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.ts),
    'fast',
  );
  const counted = (
    shape === 'records'
      ? events
      : events
          .keyBy((e) => e.key)
          .window(TumblingEventTimeWindows.of(Time.seconds(1)))
          .reduce((a, b) => ({ ...a, id: a.id + b.id }))
  ).map((v) => {
    written++;
    return v;
  });
  counted.sinkTo(slowSink());
  const client = await env.executeAsync(`slow sink (${shape})`);
  const samples: { rss: number; heap: number; written: number }[] = [];
  await new Promise<void>((done) => {
    const timer = setInterval(() => {
      collectGarbage();
      const m = process.memoryUsage();
      samples.push({ rss: m.rss, heap: m.heapUsed, written });
      if (samples.length >= seconds) {
        clearInterval(timer);
        done();
      }
    }, 1_000);
  });
  await client.cancel();
  await client.result.catch(() => {});
  process.stdout.write(`${shape}: ${written.toLocaleString('en')} records to the sink in ${seconds} s\n`);
  process.stdout.write('  seconds   RSS MB (min-median-max)   heap MB after GC (min-median-max)\n');
  for (let from = 0; from < samples.length; from += 10) {
    const part = samples.slice(from, from + 10);
    const stat = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return `${mb(sorted[0]!)}-${mb(sorted[Math.floor(sorted.length / 2)]!)}-${mb(sorted[sorted.length - 1]!)}`;
    };
    process.stdout.write(
      `  ${String(from + 1).padStart(3)}-${String(from + part.length).padEnd(3)}  ${stat(part.map((s) => s.rss)).padEnd(24)}  ${stat(part.map((s) => s.heap))}\n`,
    );
  }
}

await run('records');
await run('windows');
