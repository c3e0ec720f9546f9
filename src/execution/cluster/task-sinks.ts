// The sinks of a task in cluster mode: into a repartition topic, or a job's KafkaSink, both inside the task's transaction.
import type { KeySelector } from '../../core/functions.ts';
import type { Sink, SinkWriter } from '../../core/sink.ts';
import type { KafkaSinkConfig } from '../../connectors/kafka/kafka-sink.ts';
import { RepartitionWriter } from '../../connectors/kafka/repartition-writer.ts';
import { storeRecord } from '../../connectors/kafka/stored-record.ts';
import { SinkOperator } from '../../operators/sink-operator.ts';
import type { TaskTransaction } from './task-transaction.ts';

/** What a {@link TaskRepartitionSink} writes: one producer of one repartition topic. */
export interface TaskRepartitionTarget {
  readonly topic: string;
  readonly partitions: number;
  /** `<task id>/<operator uid>`: the name the topic's readers expect. */
  readonly producerId: string;
  readonly keySelector: KeySelector<unknown, unknown>;
  readonly maxParallelism: number;
}

/**
 * A keyBy edge leaving a task: records into the partition of their key group, watermarks and end of input as
 * markers into every partition, all inside the task's transaction.
 */
export class TaskRepartitionSink implements Sink<unknown> {
  readonly runsOnMainThread = true;
  private writer: RepartitionWriter<unknown> | undefined = undefined;

  constructor(
    private readonly target: TaskRepartitionTarget,
    private readonly transaction: () => TaskTransaction,
  ) {}

  createWriter(): SinkWriter<unknown> {
    const transaction = this.transaction();
    const writer = RepartitionWriter.attach<unknown>(
      {
        topic: this.target.topic,
        partitions: this.target.partitions,
        producerId: this.target.producerId,
        keySelector: this.target.keySelector,
        maxParallelism: this.target.maxParallelism,
      },
      (record) => transaction.send(record),
    );
    this.writer = writer;
    return {
      write: (value, timestamp) => void writer.write(value, timestamp),
      writeWatermark: (watermark) => void writer.emitWatermark(watermark),
      endOfInput: () => void writer.end(),
    };
  }

  /**
   * The producer's input went idle (an idle marker into every partition: the consumers stop waiting for this
   * producer) or active (nothing to write: the writer restates its watermark before its next record or marker).
   */
  writeWatermarkStatus(idle: boolean): void {
    if (idle) void this.writer?.markIdle();
  }
}

/** The operator of a {@link TaskRepartitionSink}: a sink that also passes its input's idleness on. */
export class TaskRepartitionSinkOperator extends SinkOperator<unknown> {
  constructor(private readonly repartitionSink: TaskRepartitionSink) {
    super(repartitionSink);
  }

  override processWatermarkStatus(idle: boolean): void {
    this.repartitionSink.writeWatermarkStatus(idle);
  }
}

/** A job's KafkaSink in cluster mode: its records go into the task's transaction (exactly once, per commit). */
export class TaskKafkaSink implements Sink<unknown> {
  readonly runsOnMainThread = true;

  constructor(
    private readonly config: KafkaSinkConfig<unknown>,
    private readonly transaction: () => TaskTransaction,
  ) {}

  createWriter(context: { readonly sinkName: string }): SinkWriter<unknown> {
    const transaction = this.transaction();
    const { serializer, defaultTopic } = this.config;
    return {
      write: (value, timestamp) =>
        transaction.send(
          storeRecord(serializer(value, timestamp), defaultTopic, timestamp, context.sinkName),
        ),
    };
  }
}
