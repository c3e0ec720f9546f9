// A CEP job that takes known events and then waits: its partial matches are read over REST, on one thread or in
// worker mode (every worker imports this module again and builds the same job).
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { CEP } from '../../src/api/cep.ts';
import { Pattern } from '../../src/cep/pattern/pattern.ts';
import type { JobClient } from '../../src/execution/job-client.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import type { WebUiOptions } from '../../src/web/web-server.ts';

export interface Event {
  readonly key: string;
  readonly name: string;
  readonly ts: number;
}

/**
 * start → middle → end (followedBy each), keyed by `key`, in event time with a watermark after every record (the
 * last is 6999). a took start and middle and waits for an end; b took two starts, each a partial match waiting for
 * a middle (followedBy skips what does not match, so the second start opens its own); d's event matches nothing;
 * c's start at 7000 is queued behind the watermark.
 */
export const EVENTS: readonly Event[] = [
  { key: 'a', name: 'start', ts: 1000 },
  { key: 'b', name: 'start', ts: 1500 },
  { key: 'a', name: 'middle', ts: 2000 },
  { key: 'b', name: 'start', ts: 2500 },
  { key: 'd', name: 'other', ts: 3000 },
  { key: 'c', name: 'start', ts: 7000 },
];

const TICK: Event = { key: 'tick', name: 'tick', ts: 7000 };

/** Starts the job: the source emits EVENTS, then ticks until the job is cancelled. */
export function startPartialMatchJob(
  webUi: WebUiOptions | undefined,
  settings: { parallelism?: number; workers?: number; jobModule?: string } = {},
): Promise<JobClient> {
  const env = StreamExecutionEnvironment.create({
    autoWatermarkRecords: 1,
    parallelism: settings.parallelism ?? 1,
    ...(settings.workers !== undefined
      ? { workers: settings.workers, jobModule: settings.jobModule ?? import.meta.url }
      : {}),
  });
  // After EVENTS, ticks at 7000 (filtered out before CEP) keep the source running without moving the watermark.
  const input = env
    .fromSource(
      GeneratorSource.of(Infinity, (i): Event => EVENTS[i] ?? TICK, { ratePerSecond: 200 }),
      WatermarkStrategy.forMonotonousTimestamps<Event>().withTimestampAssigner((e) => e.ts),
      'events',
    )
    .setParallelism(1)
    .filter((e) => e.name !== 'tick')
    .setParallelism(1);
  CEP.pattern(
    input.keyBy((e) => e.key),
    Pattern.begin<Event, 'start'>('start')
      .where((e) => e.name === 'start')
      .followedBy('middle')
      .where((e) => e.name === 'middle')
      .followedBy('end')
      .where((e) => e.name === 'end'),
  )
    .select((m: { start: Event[] }) => m.start[0]!.key)
    .name('sequences')
    .uid('sequences')
    .sinkTo({ createWriter: () => ({ write() {} }) }, 'discard');
  return env.executeAsync('partial-matches', webUi !== undefined ? { webUi } : {});
}
