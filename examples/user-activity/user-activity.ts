// The user-activity job: per-user activity per minute, with early results every 500 events and late data aside.
import type { DataStream } from '../../src/api/data-stream.ts';
import { OutputTag } from '../../src/core/output-tag.ts';
import type { AggregateFunction } from '../../src/core/aggregate-function.ts';
import { Time } from '../../src/time/time.ts';
import {
  TumblingEventTimeWindows,
  WindowedStream,
  type ProcessWindowFunction,
  type TimeWindow,
} from '../../src/index.ts';
import { CountOrEndOfWindowTrigger } from './count-or-end-of-window-trigger.ts';

/** One user action. */
export interface Activity {
  user: string;
  kind: 'view' | 'click' | 'buy';
  ts: number;
}

/** A user's activity in one minute; `early` results come before the minute is complete. */
export interface ActivitySummary {
  user: string;
  windowStart: number;
  events: number;
  buys: number;
  early: boolean;
}

/** Elements that arrive after their minute (plus the allowed lateness) was closed. */
export const lateActivity = new OutputTag<Activity>('late-activity');

/** Counts events and purchases: one small accumulator per user and minute, however many events it sees. */
const countActivity: AggregateFunction<
  Activity,
  { events: number; buys: number },
  { events: number; buys: number }
> = {
  createAccumulator: () => ({ events: 0, buys: 0 }),
  add: (a, acc) => {
    acc.events++;
    if (a.kind === 'buy') acc.buys++;
    return acc;
  },
  getResult: (acc) => ({ events: acc.events, buys: acc.buys }),
  merge: (a, b) => ({ events: a.events + b.events, buys: a.buys + b.buys }),
};

/** Adds the user, the window and whether the result is early (the watermark has not yet passed the window). */
const summarize: ProcessWindowFunction<
  { events: number; buys: number },
  ActivitySummary,
  string,
  TimeWindow
> = {
  process(user, ctx, [counts], out) {
    out.collect({
      user,
      windowStart: ctx.window.start,
      events: counts!.events,
      buys: counts!.buys,
      early: ctx.currentWatermark() < ctx.window.maxTimestamp(),
    });
  },
};

/**
 * Per-user activity in one-minute tumbling event-time windows. The trigger fires at the end of each minute and
 * early after every `earlyEvery` events of a user in that minute (the "12 hours or 500 events" pattern as a
 * window); results are cumulative for the minute. Elements up to `allowedLateness` late update their minute's
 * result; later ones go to {@link lateActivity}.
 */
export function userActivity(
  activity: DataStream<Activity>,
  { earlyEvery = 500, allowedLateness = Time.seconds(10) } = {},
): { summaries: DataStream<ActivitySummary>; late: DataStream<Activity> } {
  const summaries = new WindowedStream(
    activity.keyBy((a) => a.user),
    TumblingEventTimeWindows.of(Time.minutes(1)),
  )
    .trigger(new CountOrEndOfWindowTrigger(earlyEvery))
    .allowedLateness(allowedLateness)
    .sideOutputLateData(lateActivity)
    .aggregate(countActivity, summarize)
    .name('user activity per minute');
  return { summaries, late: summaries.getSideOutput(lateActivity) };
}
