// The clickstream job: per-user clicks per minute, login-then-buy detection with CEP, late and malformed input aside.
import {
  CEP,
  FileSource,
  OutputTag,
  Pattern,
  Time,
  TumblingEventTimeWindows,
  WatermarkStrategy,
  type AggregateFunction,
  type DataStream,
  type MalformedRecord,
  type ProcessWindowFunction,
  type StreamExecutionEnvironment,
  type TimeWindow,
} from '../../src/index.ts';

export interface Click {
  readonly uid: string;
  readonly kind: 'view' | 'login' | 'buy';
  readonly page: string;
  readonly ts: number;
}

export interface UserMinute {
  readonly uid: string;
  readonly minute: string;
  readonly clicks: number;
  readonly pages: number;
}

export interface QuickPurchase {
  readonly uid: string;
  readonly loginAt: number;
  readonly secondsToBuy: number;
}

export const lateClicks = new OutputTag<Click>('late-clicks');
export const malformedLines = new OutputTag<MalformedRecord>('malformed-lines');

/** Clicks and distinct pages in a window: one small accumulator per user and minute. */
const clicksAndPages: AggregateFunction<
  Click,
  { clicks: number; pages: Set<string> },
  { clicks: number; pages: number }
> = {
  createAccumulator: () => ({ clicks: 0, pages: new Set() }),
  add: (click, acc) => {
    acc.clicks++;
    acc.pages.add(click.page);
    return acc;
  },
  getResult: (acc) => ({ clicks: acc.clicks, pages: acc.pages.size }),
  merge: (a, b) => ({ clicks: a.clicks + b.clicks, pages: new Set([...a.pages, ...b.pages]) }),
};

const toUserMinute: ProcessWindowFunction<{ clicks: number; pages: number }, UserMinute, string, TimeWindow> =
  {
    process(uid, ctx, [counts], out) {
      out.collect({ uid, minute: new Date(ctx.window.start).toISOString().slice(11, 16), ...counts! });
    },
  };

/** A login followed by a purchase of the same user within five minutes. */
export const loginThenBuy = Pattern.begin<Click, 'login'>('login')
  .where((c) => c.kind === 'login')
  .followedBy('buy')
  .where((c) => c.kind === 'buy')
  .within(Time.minutes(5));

/**
 * Clicks arrive up to 5 s out of order. The watermark follows every click (a punctuated generator) rather than a
 * periodic timer, so which clicks count as late depends only on the input, not on how fast the job runs.
 */
export const clickWatermarks = WatermarkStrategy.forGenerator<Click>(() => {
  let maxTimestamp = -Infinity;
  return {
    onEvent: (_click, timestamp, output) => {
      if (timestamp > maxTimestamp) maxTimestamp = timestamp;
      output.emitWatermark(maxTimestamp - Time.seconds(5) - 1);
    },
    onPeriodicEmit: () => {},
  };
}).withTimestampAssigner((c) => c.ts);

/** Builds the job on `env`, reading JSON Lines click files. */
export function clickstream(
  env: StreamExecutionEnvironment,
  files: string | string[],
  watermarks = clickWatermarks,
) {
  const clicks: DataStream<Click> = env.fromSource(
    FileSource.jsonLines<Click>(files, { malformed: malformedLines }),
    watermarks,
    'clicks',
  );
  const byUser = clicks.keyBy((c) => c.uid);

  const perMinute = byUser
    .window(TumblingEventTimeWindows.of(Time.minutes(1)))
    .sideOutputLateData(lateClicks)
    .aggregate(clicksAndPages, toUserMinute)
    .name('clicks per user-minute')
    .uid('clicks-per-minute');

  const purchases = CEP.pattern(byUser, loginThenBuy)
    .select((match) => ({
      uid: match.login[0]!.uid,
      loginAt: match.login[0]!.ts,
      secondsToBuy: Math.round((match.buy[0]!.ts - match.login[0]!.ts) / 1000),
    }))
    .name('login then buy')
    .uid('login-then-buy');

  return {
    clicks,
    perMinute,
    purchases: purchases as DataStream<QuickPurchase>,
    late: perMinute.getSideOutput(lateClicks),
    malformed: clicks.getSideOutput(malformedLines),
  };
}
