// Shared driver of the window benchmarks: one window operator subtask fed directly (no job, no exchange).
import type { AggregateFunction } from '../../src/core/aggregate-function.ts';
import { AggregatingStateDescriptor } from '../../src/core/state-descriptor.ts';
import { PassThroughWindowFunction } from '../../src/windowing/operator/internal-window-function.ts';
import { WindowOperator } from '../../src/windowing/operator/window-operator.ts';
import { KeyedOperatorHarness } from '../../test/support/keyed-operator-harness.ts';
import type { WindowAssigner } from '../../src/windowing/window-assigner.ts';
import { mainThreadCpuSeconds } from './standalone.ts';

export interface BenchEvent {
  key: number;
  value: number;
}

/** count + sum per window: one mutable accumulator per (key, window). */
export const countAndSum: AggregateFunction<
  BenchEvent,
  { count: number; sum: number },
  { count: number; sum: number }
> = {
  createAccumulator: () => ({ count: 0, sum: 0 }),
  add: (e, acc) => {
    acc.count++;
    acc.sum += e.value;
    return acc;
  },
  getResult: (acc) => acc,
  merge: (a, b) => ({ count: a.count + b.count, sum: a.sum + b.sum }),
};

/**
 * Feeds `events` in timestamp order (`msPerEvent` apart, keys round-robin by a LCG) with a watermark every
 * 1,000 events, and prints events/s (of wall-clock time, and of main-thread CPU time: the steadier figure on a
 * shared machine), results, and state left after the final watermark.
 */
export function runWindowBench(
  name: string,
  assigner: WindowAssigner<any, any>,
  { keys = 10_000, events = 2_000_000, msPerEvent = 0.05 } = {},
): void {
  const harness = new KeyedOperatorHarness<BenchEvent, unknown>(
    () =>
      new WindowOperator<number, BenchEvent, unknown, unknown, any>({
        assigner,
        trigger: assigner.getDefaultTrigger(),
        windowStateDescriptor: new AggregatingStateDescriptor('window-contents', countAndSum),
        windowFunction: new PassThroughWindowFunction() as never,
        allowedLateness: 0,
        lateDataOutputTag: undefined,
      }),
    (e) => e.key,
  );
  const input: BenchEvent[] = new Array(events);
  let seed = 42;
  for (let i = 0; i < events; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    input[i] = { key: seed % keys, value: i & 7 };
  }
  const start = performance.now();
  const cpuStart = mainThreadCpuSeconds();
  for (let i = 0; i < events; i++) {
    harness.processElement(input[i]!, Math.floor(i * msPerEvent));
    if ((i & 1023) === 1023) harness.processWatermark(Math.floor(i * msPerEvent) - 1);
  }
  harness.processWatermark(Number.POSITIVE_INFINITY);
  const ms = performance.now() - start;
  const cpuRate = events / (mainThreadCpuSeconds() - cpuStart);
  console.log(
    `${name.padEnd(52)} ${Math.round((events / ms) * 1000)
      .toLocaleString('en')
      .padStart(12)} events/s  ` +
      `(${Math.round(cpuRate).toLocaleString('en')} per main-thread CPU second)  ` +
      `results ${harness.records().length}  state left ${harness.numKeyedStateEntries()}  timers left ${harness.numEventTimeTimers()}`,
  );
}
