// Memory benchmark in worker mode: an unthrottled source into a slow asynchronous sink, on 2 worker threads, with a
// keyBy between them so half of the records cross threads. Isolates whether backpressure bounds what is in flight
// when it must travel across threads (credits) as well as within one (a sink at capacity holds its sources back):
// the process's RSS (every thread's memory) is printed every second; a flat series means the records in flight are
// bounded. Run: node --import tsx bench/memory/worker-slow-sink-memory.ts [--seconds 30]
import { BroadcastChannel } from 'node:worker_threads';
import {
  AsyncSink,
  GeneratorSource,
  StreamExecutionEnvironment,
  Types,
  type Collector,
} from '../../src/index.ts';

interface Ev {
  id: number;
  key: number;
  ts: number;
  value: number;
}

/** The BroadcastChannel on which each sink subtask reports how many records it has written, every second. */
const COUNT_CHANNEL = 'weir-worker-slow-sink-memory';

const oneSlowSink = process.argv.includes('--one-slow-sink');

/** A sink whose writes take a millisecond each, one record each, two at a time: far slower than the source. */
const slowSink = () =>
  AsyncSink.of<unknown>({
    write: () => new Promise<void>((resolve) => setTimeout(resolve, 1)),
    maxBatchSize: 1,
    maxInFlightRequests: 2,
    maxBufferedRequests: 10_000,
  });

/** The job, built alike on the main thread and in each worker (they import this module again). */
async function job(): Promise<void> {
  const env = StreamExecutionEnvironment.create({
    parallelism: 2,
    workers: 2,
    jobModule: import.meta.url,
  });
  env
    .fromSource(
      GeneratorSource.of(Infinity, (n): Ev => ({ id: n, key: n % 10_000, ts: n, value: n % 7 })),
      undefined,
      'fast',
    )
    .returns(Types.record({ id: 'number', key: 'number', ts: 'number', value: 'number' }))
    .keyBy((e) => e.key)
    .process({
      written: 0,
      report: undefined as BroadcastChannel | undefined,
      timer: undefined as NodeJS.Timeout | undefined,
      open(ctx) {
        this.subtask = ctx.subtaskIndex;
        const report = new BroadcastChannel(COUNT_CHANNEL);
        this.report = report;
        this.timer = setInterval(
          () => report.postMessage({ subtask: ctx.subtaskIndex, written: this.written }),
          1_000,
        );
        this.timer.unref();
      },
      subtask: 0,
      processElement(e: Ev, _ctx, out: Collector<Ev>) {
        this.written++;
        // --one-slow-sink: only subtask 2 feeds its sink, so worker 1's source is never held back on its own thread.
        if (!oneSlowSink || this.subtask === 1) out.collect(e);
      },
      close() {
        clearInterval(this.timer);
        this.report?.close();
      },
    })
    .sinkTo(slowSink());
  if (StreamExecutionEnvironment.isJobWorker()) {
    await env.execute('slow sink on workers');
    return;
  }
  const i = process.argv.indexOf('--seconds');
  const seconds = i >= 0 ? Number(process.argv[i + 1]) : 30;
  const written = [0, 0];
  const counts = new BroadcastChannel(COUNT_CHANNEL);
  counts.onmessage = (event) => {
    const { subtask, written: n } = (event as { data: { subtask: number; written: number } }).data;
    written[subtask] = n;
  };
  const client = await env.executeAsync('slow sink on workers');
  // Sampling starts once records reach the sink: starting the workers (loading the job's modules) comes first.
  while (written[0]! + written[1]! === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  process.stdout.write(`running after ${(performance.now() / 1000).toFixed(1)} s of the process\n`);
  const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
  const samples: number[] = [];
  process.stdout.write('second  RSS MB  records through the keyed operator (both subtasks)\n');
  await new Promise<void>((done) => {
    const timer = setInterval(() => {
      const rss = process.memoryUsage().rss;
      samples.push(rss);
      process.stdout.write(
        `${String(samples.length).padStart(6)}  ${mb(rss).padStart(6)}  ${(written[0]! + written[1]!).toLocaleString('en')}\n`,
      );
      if (samples.length >= seconds) {
        clearInterval(timer);
        done();
      }
    }, 1_000);
  });
  await client.cancel();
  await client.result.catch(() => {});
  counts.close();
  const third = Math.max(1, Math.floor(samples.length / 3));
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  process.stdout.write(
    `RSS median, first ${third} s: ${mb(median(samples.slice(0, third)))} MB; last ${third} s: ${mb(median(samples.slice(-third)))} MB; max ${mb(Math.max(...samples))} MB\n`,
  );
}

await job();
