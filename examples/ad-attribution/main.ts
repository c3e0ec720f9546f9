// Runs the ad-attribution job on a small fixed input and prints the bills and the clicks no price covered.
import { StreamExecutionEnvironment, WatermarkStrategy } from '../../src/index.ts';
import { adAttribution, unpriced, type Click, type Impression, type Price } from './ad-attribution.ts';
import { sampleClicks, sampleImpressions, samplePrices } from './sample-data.ts';

const env = StreamExecutionEnvironment.create({ parallelism: 2 });
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
bills.print('bill');
bills.getSideOutput(unpriced).print('unpriced');
await env.execute('ad attribution');
