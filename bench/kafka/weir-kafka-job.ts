// Weir's side of the Kafka comparison: KafkaSource (bounded, read_committed) -> keyBy(user) -> running count and
// amount in ValueState -> KafkaSink, checkpointed; the same job as bench/flink/.../KafkaBench.java.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import {
  DeliveryGuarantee,
  Deserializers,
  KafkaSink,
  KafkaSource,
  OffsetsInitializer,
} from '../../src/connectors/kafka/index.ts';
import type { Collector, KeyedProcessContext, KeyedProcessFunction } from '../../src/core/functions.ts';
import type { RuntimeContext } from '../../src/core/runtime-context.ts';
import { ValueStateDescriptor } from '../../src/core/state-descriptor.ts';
import type { ValueState } from '../../src/core/state.ts';
import type { KafkaOrder, KafkaUserTotal } from './kafka-records.ts';

/** How one run of the job is set up (the Flink side takes the same). */
export interface KafkaJobSpec {
  readonly servers: string;
  readonly input: string;
  /** Also the consumer group and the transactional id prefix, so each run is on its own. */
  readonly output: string;
  readonly guarantee: 'exactly-once' | 'at-least-once';
  readonly parallelism: number;
  readonly checkpointMs: number;
  /** Where each partition (by index) stops; default: the end of the topic when the job starts. */
  readonly stopOffsets?: readonly number[];
}

interface CountAndTotal {
  readonly count: number;
  readonly total: number;
}

class RunningTotal implements KeyedProcessFunction<string, KafkaOrder, KafkaUserTotal> {
  private state!: ValueState<CountAndTotal>;
  open(ctx: RuntimeContext): void {
    this.state = ctx.getState(new ValueStateDescriptor<CountAndTotal>('count-and-total'));
  }
  processElement(order: KafkaOrder, _ctx: KeyedProcessContext<string>, out: Collector<KafkaUserTotal>): void {
    const current = this.state.value();
    const count = current === undefined ? 1 : current.count + 1;
    const total = current === undefined ? order.amount : current.total + order.amount;
    this.state.update({ count, total });
    out.collect({ id: order.id, user: order.user, count, total });
  }
}

/** Runs the job once to the end of the input topic; returns the milliseconds `execute()` took. */
export async function runWeirKafkaJob(spec: KafkaJobSpec): Promise<number> {
  const storage = mkdtempSync(join(tmpdir(), 'weir-bench-kafka-'));
  try {
    const env = StreamExecutionEnvironment.create({ parallelism: spec.parallelism });
    env.enableCheckpointing(spec.checkpointMs, { storage });
    env
      .fromSource(
        KafkaSource.builder<KafkaOrder>()
          .setBootstrapServers(spec.servers)
          .setTopics(spec.input)
          .setGroupId(spec.output)
          .setStartingOffsets(OffsetsInitializer.earliest())
          .setBounded(
            spec.stopOffsets === undefined
              ? OffsetsInitializer.latest()
              : OffsetsInitializer.offsets(
                  spec.stopOffsets.map((offset, partition) => ({ topic: spec.input, partition, offset })),
                ),
          )
          .setValueOnlyDeserializer(Deserializers.json<KafkaOrder>())
          .setProperty('isolation.level', 'read_committed')
          .build(),
        undefined,
        'orders',
      )
      .keyBy((order) => order.user)
      .process(new RunningTotal())
      .sinkTo(
        KafkaSink.builder<KafkaUserTotal>()
          .setBootstrapServers(spec.servers)
          .setTopic(spec.output)
          .setRecordSerializer((t) => ({ key: t.user, value: JSON.stringify(t) }))
          .setDeliveryGuarantee(
            spec.guarantee === 'exactly-once'
              ? DeliveryGuarantee.EXACTLY_ONCE
              : DeliveryGuarantee.AT_LEAST_ONCE,
          )
          .setTransactionalIdPrefix(spec.output)
          .build(),
        'totals',
      );
    const start = performance.now();
    await env.execute('weir-bench-kafka');
    return performance.now() - start;
  } finally {
    rmSync(storage, { recursive: true, force: true });
  }
}
