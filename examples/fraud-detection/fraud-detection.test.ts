// Tests the fraud-detection example: alerts, expired probes and late transactions, step by step and end to end.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../../src/api/data-stream.ts';
import { CollectSink, StreamExecutionEnvironment } from '../../src/index.ts';
import { TestHarness } from '../../src/testing/index.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import { detectFraud, lateTag, timedOutTag, type Transaction } from './fraud-detection.ts';

const t = (card: string, amount: number, seconds: number): Transaction => ({
  card,
  amount,
  ts: seconds * 1000,
});

describe('fraud detection example', () => {
  it('alerts on small-then-large within a minute per card; reports expired probes and late data', async () => {
    const h = await TestHarness.create((input: DataStream<Transaction>) => detectFraud(input).alerts, {
      parallelism: 2,
    });
    const feed = (x: Transaction) => h.processElement(x, x.ts);
    feed(t('4111', 0.5, 0));
    feed(t('5500', 0.1, 50));
    feed(t('4111', 900, 30));
    h.processWatermark(60_000);
    assert.deepEqual(h.records(), [{ card: '4111', small: 0.5, large: 900, at: 30_000 }]);
    feed(t('4111', 1200, 10)); // behind the watermark
    feed(t('5500', 700, 150));
    h.processWatermark(200_000);
    assert.deepEqual(h.records().length, 1);
    assert.deepEqual(
      h.sideOutput(timedOutTag).map((r) => r.value),
      [{ card: '5500', small: 0.1, expiredAt: 110_000 }],
    );
    assert.deepEqual(
      h.sideOutput(lateTag).map((r) => r.value),
      [t('4111', 1200, 10)],
    );
    await h.close();
  });

  it('runs end to end as main.ts does', async () => {
    const env = StreamExecutionEnvironment.create();
    const source = env
      .fromElements(
        t('4111', 0.5, 0),
        t('5500', 20, 5),
        t('4111', 900, 30),
        t('6011', 0.99, 40),
        t('5500', 0.1, 50),
        t('5500', 700, 150),
      )
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forBoundedOutOfOrderness<Transaction>(10_000).withTimestampAssigner((x) => x.ts),
      );
    const { alerts, timedOut } = detectFraud(source);
    const [a, o] = [new CollectSink<unknown>(), new CollectSink<unknown>()];
    alerts.sinkTo(a);
    timedOut.sinkTo(o);
    await env.execute('fraud');
    assert.deepEqual(a.values, [{ card: '4111', small: 0.5, large: 900, at: 30_000 }]);
    assert.deepEqual((o.values as { card: string }[]).map((v) => v.card).sort(), ['5500', '6011']);
  });
});
