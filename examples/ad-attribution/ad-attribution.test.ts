// Tests the ad-attribution example: the whole job at several parallelisms, late clicks, and billing restored.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../../src/api/data-stream.ts';
import { CollectSink, StreamExecutionEnvironment, WatermarkStrategy } from '../../src/index.ts';
import { TestHarness } from '../../src/testing/index.ts';
import {
  adAttribution,
  attribute,
  billing,
  lateClicks,
  pricesState,
  unpriced,
  type Attribution,
  type Bill,
  type Click,
  type Impression,
  type Price,
} from './ad-attribution.ts';
import { sampleClicks, sampleImpressions, samplePrices } from './sample-data.ts';

const min = 60_000;

async function runJob(parallelism: number): Promise<{ bills: Bill[]; unpriced: Attribution[] }> {
  const env = StreamExecutionEnvironment.create({ parallelism });
  const clicks = env
    .fromCollection(sampleClicks)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Click>(30_000).withTimestampAssigner((c) => c.ts),
    );
  const impressions = env
    .fromCollection(sampleImpressions)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Impression>(30_000).withTimestampAssigner((i) => i.ts),
    );
  const prices = env
    .fromCollection(samplePrices)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forMonotonousTimestamps<Price>().withTimestampAssigner((p) => p.from),
    );
  const bills = adAttribution(clicks, impressions, prices);
  const billSink = new CollectSink<Bill>();
  const unpricedSink = new CollectSink<Attribution>();
  bills.sinkTo(billSink);
  bills.getSideOutput(unpriced).sinkTo(unpricedSink);
  await env.execute('ad attribution');
  const order = (a: { campaign: string; clickedAt: number }, b: { campaign: string; clickedAt: number }) =>
    a.campaign.localeCompare(b.campaign) || a.clickedAt - b.clickedAt;
  return { bills: [...billSink.values].sort(order), unpriced: [...unpricedSink.values].sort(order) };
}

describe('ad attribution example', () => {
  for (const parallelism of [1, 2, 4]) {
    it(`bills every credited click at the price in effect at click time (parallelism ${parallelism})`, async () => {
      const { bills, unpriced: noPrice } = await runJob(parallelism);
      assert.deepEqual(bills, [
        { campaign: 'bikes', user: 'bob', clickedAt: 32 * min, cents: 25, spend: 25 },
        { campaign: 'bikes', user: 'cid', clickedAt: 45 * min, cents: 30, spend: 55 },
        { campaign: 'shoes', user: 'ann', clickedAt: 2 * min, cents: 40, spend: 40 },
        { campaign: 'shoes', user: 'ann', clickedAt: 25 * min, cents: 55, spend: 95 },
      ]);
      assert.deepEqual(noPrice, [
        { campaign: 'bikes', ad: 'bikes-1', user: 'cid', shownAt: 4 * min, clickedAt: 5 * min },
        { campaign: 'books', ad: 'books-1', user: 'ann', shownAt: 50 * min, clickedAt: 55 * min },
      ]);
    });
  }

  it('credits only impressions of the same ad and user within ten minutes; late clicks go to their side output', async () => {
    const h = await TestHarness.createTwoInput(
      (clicks: DataStream<Click>, impressions: DataStream<Impression>) => attribute(clicks, impressions),
    );
    const show = (i: Impression) => h.processElement2(i, i.ts);
    const click = (c: Click) => h.processElement1(c, c.ts);
    show({ ad: 'a', campaign: 'c', user: 'u', ts: 0 });
    show({ ad: 'a', campaign: 'c', user: 'v', ts: 0 });
    show({ ad: 'b', campaign: 'c', user: 'u', ts: 1 * min });
    click({ ad: 'a', user: 'u', ts: 10 * min }); // exactly ten minutes after: credited
    click({ ad: 'a', user: 'v', ts: 10 * min + 1 }); // one millisecond too late: not credited
    h.processWatermark1(20 * min);
    h.processWatermark2(20 * min);
    click({ ad: 'b', user: 'u', ts: 2 * min }); // behind the watermark
    assert.deepEqual(h.records(), [{ campaign: 'c', ad: 'a', user: 'u', shownAt: 0, clickedAt: 10 * min }]);
    assert.deepEqual(h.sideOutput(lateClicks), [
      { value: { ad: 'b', user: 'u', ts: 2 * min }, timestamp: 2 * min },
    ]);
    assert.equal(h.numKeyedStateEntries(), 0, 'the watermark cleaned both buffers');
    await h.close();
  });

  it('bills by event time however prices and clicks interleave, and keeps prices and spend across a restore at another parallelism', async () => {
    const build = (attributions: DataStream<Attribution>, prices: DataStream<Price>) =>
      attributions
        .keyBy((a) => a.campaign)
        .connect(prices.broadcast(pricesState))
        .process(billing)
        .uid('billing');
    const attr = (campaign: string, user: string, clickedAt: number): Attribution => ({
      campaign,
      ad: `${campaign}-1`,
      user,
      shownAt: clickedAt - 1,
      clickedAt,
    });
    const h1 = await TestHarness.createTwoInput(build, { parallelism: 2 });
    h1.processElement1(attr('shoes', 'ann', 5 * min), 5 * min); // arrives before the price it needs
    h1.processElement2({ campaign: 'shoes', cents: 40, from: 0 }, 0);
    h1.processWatermark1(5 * min);
    h1.processWatermark2(5 * min);
    assert.deepEqual(h1.records(), [
      { campaign: 'shoes', user: 'ann', clickedAt: 5 * min, cents: 40, spend: 40 },
    ]);
    h1.processElement1(attr('shoes', 'bob', 8 * min), 8 * min); // pending at the snapshot
    const snapshot = h1.snapshot();
    await h1.close();

    const h2 = await TestHarness.restoreTwoInput(build, snapshot, { parallelism: 3 });
    h2.processElement2({ campaign: 'shoes', cents: 70, from: 9 * min }, 9 * min);
    h2.processWatermark1(10 * min);
    h2.processWatermark2(10 * min);
    assert.deepEqual(h2.records(), [
      { campaign: 'shoes', user: 'bob', clickedAt: 8 * min, cents: 40, spend: 80 },
    ]);
    h2.processElement1(attr('shoes', 'cid', 11 * min), 11 * min);
    h2.processWatermark1(11 * min);
    h2.processWatermark2(11 * min);
    assert.deepEqual(h2.records()[1], {
      campaign: 'shoes',
      user: 'cid',
      clickedAt: 11 * min,
      cents: 70,
      spend: 150,
    });
    await h2.close();
  });
});
