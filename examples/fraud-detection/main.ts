// Runs the fraud-detection job on a few transactions and prints alerts and expired probes (late data: see the test).
import { StreamExecutionEnvironment } from '../../src/index.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import { detectFraud, type Transaction } from './fraud-detection.ts';

const t = (card: string, amount: number, seconds: number): Transaction => ({
  card,
  amount,
  ts: seconds * 1000,
});

const env = StreamExecutionEnvironment.create();
const transactions = env
  .fromElements(
    t('4111', 0.5, 0), // probe ...
    t('5500', 20, 5),
    t('4111', 900, 30), // ... then a large purchase within the minute: alert
    t('6011', 0.99, 40), // probe that expires
    t('5500', 0.1, 50),
    t('5500', 700, 150), // too late for the probe at 50 s: no alert, the probe expires
    t('4111', 0.2, 100), // a probe that expires
    t('4111', 1200, 10), // out of order: sorted back to 10 s, before the 900 at 30 s, so it completes the alert
  )
  .assignTimestampsAndWatermarks(
    WatermarkStrategy.forBoundedOutOfOrderness(10_000).withTimestampAssigner((x) => x.ts),
  );

const { alerts, timedOut, late } = detectFraud(transactions);
alerts.print('ALERT');
timedOut.print('expired probe');
late.print('late');
await env.execute('fraud detection');
