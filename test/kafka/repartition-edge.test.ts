// A keyBy carried over a repartition topic inside one job (p=2 → topic → p=2) gives what the in-process exchange gives.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import type { KeyedStream } from '../../src/api/keyed-stream.ts';
import { CollectSink } from '../../src/connectors/collect-sink.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import { RepartitionSink } from '../../src/connectors/kafka/repartition-sink.ts';
import { RepartitionSource } from '../../src/connectors/kafka/repartition-source.ts';
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import { TumblingEventTimeWindows } from '../../src/windowing/assigners/tumbling-event-time-windows.ts';
import { bootstrapServers, createTopic, uniqueTopic } from './kafka-test-cluster.ts';

interface Payment {
  readonly user: string;
  readonly amount: number;
  readonly ts: number;
}

const EVENTS = 3_000;

/**
 * Payments of 20 users, 10 ms apart: generator subtask s of 2 emits indices s, s+2, ..., so each subtask's
 * timestamps rise and no record is late whatever the interleaving of the two; per-user sums over 1 s windows.
 */
function job(
  env: StreamExecutionEnvironment,
  exchange: (events: ReturnType<typeof payments>) => KeyedStream<Payment, string>,
) {
  const out = new CollectSink<string>();
  exchange(payments(env))
    .window(TumblingEventTimeWindows.of(1000))
    .process<string>({
      process(user, ctx, elements, collector) {
        let sum = 0;
        let count = 0;
        for (const p of elements) {
          sum += p.amount;
          count++;
        }
        collector.collect(`${user} [${ctx.window.start},${ctx.window.end}) n=${count} sum=${sum}`);
      },
    })
    .sinkTo(out);
  return out;
}

function payments(env: StreamExecutionEnvironment) {
  return env.fromSource(
    GeneratorSource.of(
      EVENTS,
      (i, random): Payment => ({ user: `u${random.nextInt(20)}`, amount: random.nextInt(100), ts: i * 10 }),
      {
        seed: 11,
      },
    ),
    WatermarkStrategy.forMonotonousTimestamps<Payment>().withTimestampAssigner((p) => p.ts),
    'payments',
  );
}

describe('keyBy over a repartition topic (Kafka)', { timeout: 180_000 }, () => {
  it('p=2 → 2-partition topic → p=2 gives the in-process keyBy’s windows, record for record', async () => {
    const inProcess = StreamExecutionEnvironment.create({ parallelism: 2 });
    const expected = job(inProcess, (events) => events.keyBy((p) => p.user));
    await inProcess.execute('in-process');

    const topic = uniqueTopic('repartition-edge');
    await createTopic(topic, 2);
    const overKafka = StreamExecutionEnvironment.create({ parallelism: 2 });
    const watermarksSeen: number[] = [];
    const actual = job(overKafka, (events) => {
      events.sinkTo(
        new RepartitionSink<Payment>({
          bootstrapServers: bootstrapServers(),
          topic,
          keySelector: (p) => p.user,
        }),
        'to-topic',
      );
      const carried = overKafka
        .fromSource(
          new RepartitionSource<Payment>({
            bootstrapServers: bootstrapServers(),
            topic,
            producers: RepartitionSink.producerIds('to-topic', 2),
          }),
          undefined,
          'from-topic',
        )
        .keyBy((p) => p.user);
      // The watermark each record meets after the topic: it must have advanced before the input ended.
      carried
        .process<never>({
          processElement(_p, ctx) {
            watermarksSeen.push(ctx.timerService().currentWatermark());
          },
        })
        .sinkTo(new CollectSink<never>());
      return carried;
    });
    await overKafka.execute('over-kafka');

    assert.ok(expected.values.length > 500, `${expected.values.length} windows`); // up to 20 users × 30 windows
    assert.deepEqual([...actual.values].sort(), [...expected.values].sort());
    assert.equal(watermarksSeen.length, EVENTS);
    assert.ok(
      Math.max(...watermarksSeen) >= 20_000,
      `watermarks after the topic reached ${Math.max(...watermarksSeen)}`,
    );
  });
});
