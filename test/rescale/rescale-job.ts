// The job every rescale test runs behind its source: each record, and per key 1 s window sums, committed exactly once.
import {
  StreamExecutionEnvironment,
  Time,
  TumblingEventTimeWindows,
  FileSink,
  DeliveryGuarantee,
  WatermarkStrategy,
  type Source,
} from '../../src/index.ts';

export interface Ev {
  id: number;
  key: number;
  ts: number;
}

const KEYS = 11;
/** Record `id`: its key and event time follow from it, so the expected output is computed from ids alone. */
export const event = (id: number): Ev => ({ id, key: id % KEYS, ts: id });

/**
 * The job behind every source: each record to an exactly-once sink (to check each arrives once), and per key a
 * tumbling event-time window of 1,000 ms summing ids, to another one. The source emits no watermarks, so every
 * window fires at the end of input: its contents cross the savepoint as keyed state and move between subtasks.
 * (With watermarks, the splits a subtask reads one after the other after a rescale would step back in event time
 * and make records late, which is event-time semantics, not what this test is about.)
 */
export function buildJob(
  env: StreamExecutionEnvironment,
  source: Source<Ev>,
  out: { records: string; windows: string },
  onRecord?: () => void,
): void {
  const events = env
    .fromSource(
      source,
      WatermarkStrategy.noWatermarks<Ev>().withTimestampAssigner((e) => e.ts),
      'events',
    )
    .uid('events')
    .map((e) => {
      onRecord?.();
      return e;
    })
    .uid('progress');
  events
    .sinkTo(FileSink.jsonLines(out.records, { deliveryGuarantee: DeliveryGuarantee.EXACTLY_ONCE }))
    .uid('records');
  events
    .keyBy((e) => e.key)
    .window(TumblingEventTimeWindows.of(Time.milliseconds(1_000)))
    .aggregate({
      createAccumulator: () => ({ key: -1, start: -1, sum: 0, n: 0 }),
      add: (e: Ev, acc: { key: number; start: number; sum: number; n: number }) => ({
        key: e.key,
        start: e.ts - (e.ts % 1_000),
        sum: acc.sum + e.id,
        n: acc.n + 1,
      }),
      getResult: (acc) => acc,
      merge: (a, b) => ({ ...a, sum: a.sum + b.sum, n: a.n + b.n }),
    })
    .uid('windows')
    .sinkTo(FileSink.jsonLines(out.windows, { deliveryGuarantee: DeliveryGuarantee.EXACTLY_ONCE }))
    .uid('window-sink');
}

/** The exact output of the whole input, read once: every record, and every (key, window) sum. */
export function expected(ids: readonly number[]): { records: string[]; windows: string[] } {
  const windows = new Map<string, { key: number; start: number; sum: number; n: number }>();
  for (const id of ids) {
    const e = event(id);
    const start = e.ts - (e.ts % 1_000);
    const w = windows.get(`${e.key}/${start}`) ?? { key: e.key, start, sum: 0, n: 0 };
    w.sum += id;
    w.n++;
    windows.set(`${e.key}/${start}`, w);
  }
  return {
    records: ids.map((id) => JSON.stringify(event(id))).sort(),
    windows: [...windows.values()].map((w) => JSON.stringify(w)).sort(),
  };
}

/** The integers from `from` up to `to` (excluded). */
export const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
/** JSON lines of the records with these ids. */
export const jsonl = (ids: readonly number[]) => ids.map((id) => JSON.stringify(event(id))).join('\n') + '\n';
