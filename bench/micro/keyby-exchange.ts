// Micro-benchmark: one keyBy exchange between two worker threads against the same exchange inside one thread.
// The job is source (parallelism 1) → keyBy → a keyed count in ValueState (parallelism 2) → a sink that discards,
// and every key falls into subtask 2's key groups. On one thread (workers: 1) each record goes from the source to
// the keyed subtask by direct calls; on 2 workers (kept between runs, so code is warm) the source runs on worker 1
// and the keyed subtask on worker 2, so every record crosses threads. The difference per record is what crossing
// costs. Runs alternate between the two modes (taking turns at going first) so a change of load falls on both; per
// run: events/s of wall time (worker start-up left out), CPU time of the process (every thread, V8's helpers
// included) and, on Node 24, of each thread running subtasks, from its sink subtask's start to its end of input.
// Records are the bench's events {id, key, value, ts}, declared with `returns` (typed: written into a Float64Array)
// or not (untyped: msgpackr).
// Run: node --import tsx bench/micro/keyby-exchange.ts [--events 2000000] [--runs 5] [--record typed|untyped]
//      [--threads one|two] (only that mode, to profile it)
import { BroadcastChannel } from 'node:worker_threads';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import type { KeyedProcessFunction } from '../../src/core/functions.ts';
import type { RuntimeContext } from '../../src/core/runtime-context.ts';
import { ValueStateDescriptor } from '../../src/core/state-descriptor.ts';
import type { ValueState } from '../../src/core/state.ts';
import { Types } from '../../src/core/record-type.ts';
import { keyGroupFor, normalizeKey } from '../../src/state/key-hash.ts';

interface Event {
  id: number;
  key: number;
  value: number;
  ts: number;
}

/** What the main thread tells the workers about the run (they import this module again). */
interface RunConfig {
  readonly events: number;
  readonly typed: boolean;
  readonly workers: number;
  /** The BroadcastChannel on which each sink subtask reports. */
  readonly channel: string;
}

/** A sink subtask's report at the end of its input. */
interface Report {
  readonly subtask: number;
  readonly count: number;
  readonly sum: number;
  /** CPU ms of its thread from the sink's start to its end of input (Node 24), else -1. */
  readonly threadCpuMs: number;
}

const CONFIG_ENV = 'WEIR_KEYBY_EXCHANGE';
const EventType = Types.record({ id: 'number', key: 'number', value: 'number', ts: 'number' });
const MAX_PARALLELISM = 128;

/** 1,000 distinct keys whose key groups belong to subtask 2 of 2, so every record goes to that subtask. */
const KEYS: number[] = [];
for (let k = 0; KEYS.length < 1000; k++) {
  if (Math.floor((keyGroupFor(normalizeKey(k), MAX_PARALLELISM) * 2) / MAX_PARALLELISM) === 1) KEYS.push(k);
}

const threadCpuMs = (): number => {
  const usage = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage?.();
  return usage === undefined ? -1 : (usage.user + usage.system) / 1000;
};

/** Counts per key in ValueState and sums the values it saw (the checksum); emits nothing. */
class KeyedCount implements KeyedProcessFunction<number, Event, never> {
  private count!: ValueState<number>;
  open(ctx: RuntimeContext): void {
    this.count = ctx.getState(new ValueStateDescriptor<number>('count', { defaultValue: 0 }));
  }
  processElement(e: Event): void {
    this.count.update(this.count.value()! + 1);
    sums[1] = (sums[1]! + e.value) | 0;
  }
}

/** Per subtask index on this thread: what the keyed subtask summed (only subtask 2 receives records). */
const sums = [0, 0];

async function runJob(config: RunConfig): Promise<number> {
  const env = StreamExecutionEnvironment.create({
    parallelism: 2,
    maxParallelism: MAX_PARALLELISM,
    workers: config.workers,
    jobModule: import.meta.url,
    reuseWorkers: true,
  });
  const source = GeneratorSource.of(
    config.events,
    (i): Event => ({ id: i, key: KEYS[i % 1000]!, value: i % 1009, ts: i }),
    { batchSize: 1000 },
  );
  let stream = env.fromSource(source, undefined, 'events').setParallelism(1);
  if (config.typed) stream = stream.returns(EventType);
  stream
    .keyBy((e) => e.key)
    .process(new KeyedCount())
    .sinkTo({
      createWriter: (context) => {
        const started = threadCpuMs();
        sums[context.subtaskIndex] = 0;
        return {
          write: () => {},
          endOfInput: () => {
            const port = new BroadcastChannel(config.channel);
            const report: Report = {
              subtask: context.subtaskIndex,
              count: 0,
              sum: sums[context.subtaskIndex]!,
              threadCpuMs: started < 0 ? -1 : threadCpuMs() - started,
            };
            port.postMessage(report);
            port.close();
          },
        };
      },
    });
  const result = await env.execute('keyby-exchange');
  return result.workerStartupMs;
}

const ownConfig = process.env[CONFIG_ENV];
if (StreamExecutionEnvironment.isJobWorker()) {
  if (ownConfig !== undefined) await runJob(JSON.parse(ownConfig) as RunConfig);
} else {
  const arg = (name: string, fallback: string): string => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1]! : fallback;
  };
  const events = Number(arg('events', '2000000'));
  const runs = Number(arg('runs', '5'));
  const typed = arg('record', 'typed') === 'typed';
  /** `--threads one` or `two` runs only that mode (to profile it). */
  const only = process.argv.includes('--threads') ? arg('threads', 'two') : undefined;
  const figures: Record<string, { rate: number[]; cpu: number[]; threads: number[][] }> = {
    one: { rate: [], cpu: [], threads: [] },
    two: { rate: [], cpu: [], threads: [] },
  };
  let reference: number | undefined;
  let counter = 0;
  for (let r = -1; r < runs; r++) {
    for (const mode of r % 2 === 0 ? ['one', 'two'] : ['two', 'one']) {
      if (only !== undefined && mode !== only) continue;
      const channel = `weir-keyby-exchange-${process.pid}-${++counter}`;
      const reports: Report[] = [];
      const port = new BroadcastChannel(channel);
      port.onmessage = (event) => reports.push((event as { data: Report }).data);
      const config: RunConfig = {
        events: r < 0 ? Math.floor(events / 4) : events,
        typed,
        workers: mode === 'one' ? 1 : 2,
        channel,
      };
      process.env[CONFIG_ENV] = JSON.stringify(config);
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      const startup = await runJob(config);
      const ms = performance.now() - start - startup;
      const cpu = process.cpuUsage(cpuStart);
      while (reports.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
      port.close();
      if (r < 0) continue;
      const sum = reports.reduce((s, x) => (s + x.sum) | 0, 0);
      reference ??= sum;
      if (sum !== reference)
        throw new Error(`checksum mismatch on ${mode} thread(s): ${sum} vs ${reference}`);
      const f = figures[mode]!;
      f.rate.push((events / ms) * 1000);
      f.cpu.push((cpu.user + cpu.system) / 1000);
      f.threads.push(reports.sort((a, b) => a.subtask - b.subtask).map((x) => x.threadCpuMs));
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const span = (xs: number[], f: (x: number) => string): string =>
    `${f(median(xs))} (${f(Math.min(...xs))}-${f(Math.max(...xs))})`;
  const mps = (x: number): string => `${(x / 1e6).toFixed(2)}M`;
  const ns = (ms: number): string => `${((ms * 1e6) / events).toFixed(0)}`;
  console.log(
    `keyBy exchange, ${typed ? 'typed' : 'untyped'} records, ${events} events, ${runs} runs: median (min-max)`,
  );
  for (const mode of ['one', 'two']) {
    const f = figures[mode]!;
    if (f.rate.length === 0) continue;
    const perThread =
      f.threads[0]![0]! < 0
        ? ''
        : mode === 'one'
          ? `  its thread ${span(
              f.threads.map((t) => t[0]!),
              ns,
            )} ns/event`
          : `  both threads ${span(
              f.threads.map((t) => t[0]! + t[1]!),
              ns,
            )}, source thread ${span(
              f.threads.map((t) => t[0]!),
              ns,
            )}, keyed thread ${span(
              f.threads.map((t) => t[1]!),
              ns,
            )} ns/event`;
    console.log(
      `${mode === 'one' ? 'one thread ' : 'two threads'}  ${span(f.rate, mps)} events/s  process CPU ${span(f.cpu, ns)} ns/event${perThread}`,
    );
  }
  if (only === undefined)
    console.log(`two/one events/s: ${(median(figures.two!.rate) / median(figures.one!.rate)).toFixed(2)}`);
  process.exit(0);
}
