// Ad attribution: clicks interval-joined with the impressions before them, billed at prices from broadcast state.
import type { DataStream } from '../../src/api/data-stream.ts';
import type { KeyedBroadcastProcessFunction } from '../../src/core/broadcast-process-function.ts';
import { OutputTag } from '../../src/core/output-tag.ts';
import type { ListState, ValueState } from '../../src/core/state.ts';
import {
  ListStateDescriptor,
  MapStateDescriptor,
  ValueStateDescriptor,
} from '../../src/core/state-descriptor.ts';

/** An ad shown to a user at `ts` (event time, ms). */
export interface Impression {
  readonly ad: string;
  readonly campaign: string;
  readonly user: string;
  readonly ts: number;
}

/** A click on an ad at `ts`. */
export interface Click {
  readonly ad: string;
  readonly user: string;
  readonly ts: number;
}

/** A campaign's price per click in cents, effective from `from` (event time) until the next price. */
export interface Price {
  readonly campaign: string;
  readonly cents: number;
  readonly from: number;
}

/** A click credited to an impression of the same ad and user shown at most ten minutes before it. */
export interface Attribution {
  readonly campaign: string;
  readonly ad: string;
  readonly user: string;
  readonly shownAt: number;
  readonly clickedAt: number;
}

/** An attribution billed at the campaign's price at click time, with the campaign's running spend. */
export interface Bill {
  readonly campaign: string;
  readonly user: string;
  readonly clickedAt: number;
  readonly cents: number;
  readonly spend: number;
}

export const ATTRIBUTION_WINDOW_MS = 10 * 60_000;

/** Clicks that arrived behind the watermark: too late to be matched or billed. */
export const lateClicks = new OutputTag<Click>('late-clicks');
/** Attributions for a campaign that had no price yet at click time. */
export const unpriced = new OutputTag<Attribution>('unpriced');

/** Every subtask's copy of the price history per campaign, oldest first. */
export const pricesState = new MapStateDescriptor<string, Price[]>('prices');

/**
 * Credits each click to every impression of the same ad and user in the ten minutes before it (an interval join
 * on `click.ts - 10 min <= impression.ts <= click.ts`).
 */
export function attribute(
  clicks: DataStream<Click>,
  impressions: DataStream<Impression>,
): DataStream<Attribution> {
  return clicks
    .keyBy((c) => `${c.ad}|${c.user}`)
    .intervalJoin(impressions.keyBy((i) => `${i.ad}|${i.user}`))
    .between(-ATTRIBUTION_WINDOW_MS, 0)
    .sideOutputLeftLateData(lateClicks)
    .process<Attribution>((click, impression, _ctx, out) =>
      out.collect({
        campaign: impression.campaign,
        ad: click.ad,
        user: click.user,
        shownAt: impression.ts,
        clickedAt: click.ts,
      }),
    )
    .name('Attribute clicks');
}

/**
 * Bills attributions per campaign at the price in effect at click time. Prices are broadcast to every subtask.
 * An attribution waits in keyed state for an event-time timer at its click time: once the watermark (the minimum
 * of both inputs) passes it, every price effective by then has arrived, so the bill does not depend on how the
 * two streams interleave.
 */
export const billing: KeyedBroadcastProcessFunction<string, Attribution, Price, Bill> & {
  pending: ListState<Attribution>;
  spend: ValueState<number>;
} = {
  pending: undefined as unknown as ListState<Attribution>,
  spend: undefined as unknown as ValueState<number>,
  open(ctx) {
    this.pending = ctx.getListState(new ListStateDescriptor<Attribution>('pending'));
    this.spend = ctx.getState(new ValueStateDescriptor<number>('spend', { defaultValue: 0 }));
  },
  processBroadcastElement(price, ctx) {
    const prices = ctx.getBroadcastState(pricesState);
    const history = [...(prices.get(price.campaign) ?? []), price].sort((a, b) => a.from - b.from);
    prices.put(price.campaign, history);
  },
  processElement(attribution, ctx) {
    this.pending.add(attribution);
    ctx.timerService().registerEventTimeTimer(attribution.clickedAt);
  },
  onTimer(timestamp, ctx, out) {
    const all = [...this.pending.get()];
    const due = all.filter((a) => a.clickedAt <= timestamp).sort(byClick);
    this.pending.update(all.filter((a) => a.clickedAt > timestamp));
    const history = ctx.getBroadcastState(pricesState).get(ctx.getCurrentKey()) ?? [];
    for (const a of due) {
      const price = history.filter((p) => p.from <= a.clickedAt).pop();
      if (price === undefined) {
        ctx.output(unpriced, a);
        continue;
      }
      const spend = this.spend.value()! + price.cents;
      this.spend.update(spend);
      out.collect({ campaign: a.campaign, user: a.user, clickedAt: a.clickedAt, cents: price.cents, spend });
    }
  },
};

function byClick(a: Attribution, b: Attribution): number {
  return (
    a.clickedAt - b.clickedAt ||
    a.user.localeCompare(b.user) ||
    a.ad.localeCompare(b.ad) ||
    a.shownAt - b.shownAt
  );
}

/** The whole job: attribution, then billing at broadcast prices. */
export function adAttribution(
  clicks: DataStream<Click>,
  impressions: DataStream<Impression>,
  prices: DataStream<Price>,
): DataStream<Bill> {
  return attribute(clicks, impressions)
    .keyBy((a) => a.campaign)
    .connect(prices.broadcast(pricesState))
    .process(billing)
    .name('Bill clicks')
    .uid('billing');
}
