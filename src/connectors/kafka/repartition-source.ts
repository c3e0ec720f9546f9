// RepartitionSource: the consuming side of a repartition exchange as a source: subtask i reads partition i.
import { ConfigurationError } from '../../core/errors.ts';
import type {
  PollResult,
  ReaderOutput,
  Source,
  SourceReader,
  SourceReaderContext,
} from '../../core/source.ts';
import type { KafkaProperties } from './kafka-client.ts';
import type { RepartitionCodec } from './repartition-codec.ts';
import { RepartitionReader, type RepartitionOutput } from './repartition-reader.ts';

/** What a {@link RepartitionSource} needs. */
export interface RepartitionSourceOptions<T> {
  /** `host:port[,host:port...]` of the brokers. */
  readonly bootstrapServers: string;
  /** The repartition topic: as many partitions as the source has subtasks. */
  readonly topic: string;
  /** The producers writing into the topic (for a {@link RepartitionSink}: `RepartitionSink.producerIds`). */
  readonly producers: readonly string[];
  /** The job's max parallelism; the producers' must be the same (default 128). */
  readonly maxParallelism?: number;
  /** Record values from bytes (default msgpackr; the producers' codec). */
  readonly codec?: RepartitionCodec<T>;
  /** Any other librdkafka consumer property. */
  readonly properties?: KafkaProperties;
}

/**
 * Reads a repartition topic: subtask `i` reads partition `i`, which holds exactly the key groups subtask `i` of
 * a keyed operator at this parallelism owns, and emits the records with their timestamps and the watermark
 * merged over the producers (so use it without a watermark strategy: `env.fromSource(source, undefined, name)`).
 * It ends when every producer has ended. A `keyBy` with the producers' key selector after it routes every record
 * to the subtask with its own index.
 *
 * It has no splits: a restored job reads the topic from its start again (see {@link RepartitionSink} on why this
 * in-job exchange is not the exactly-once one).
 */
export class RepartitionSource<T> implements Source<T> {
  readonly boundedness = 'bounded' as const;

  constructor(private readonly options: RepartitionSourceOptions<T>) {}

  createReader(context: SourceReaderContext): SourceReader<T> {
    return new RepartitionSourceReader(this.options, context);
  }
}

class RepartitionSourceReader<T> implements SourceReader<T>, RepartitionOutput<T> {
  private reader: RepartitionReader<T> | undefined = undefined;
  private output: ReaderOutput<T> | undefined = undefined;

  constructor(
    private readonly options: RepartitionSourceOptions<T>,
    private readonly context: SourceReaderContext,
  ) {}

  async pollNext(output: ReaderOutput<T>): Promise<PollResult> {
    this.output = output;
    if (this.reader === undefined) this.reader = await this.open();
    return this.reader.poll(this);
  }

  collect(value: T, timestamp: number | undefined): void {
    this.output!.collect(value, timestamp);
  }

  emitWatermark(watermark: number): void {
    this.output!.emitWatermark!(watermark);
  }

  markIdle(idle: boolean): void {
    this.output!.markIdle!(idle);
  }

  async close(): Promise<void> {
    await this.reader?.close();
  }

  private async open(): Promise<RepartitionReader<T>> {
    const { subtaskIndex, parallelism, sourceName } = this.context;
    if (this.output!.emitWatermark === undefined || this.output!.markIdle === undefined)
      throw new ConfigurationError(`RepartitionSource '${sourceName}' needs an output that takes watermarks`);
    const { options } = this;
    const reader = await RepartitionReader.open<T>({
      bootstrapServers: options.bootstrapServers,
      topic: options.topic,
      partitions: [subtaskIndex],
      producers: options.producers,
      ...(options.maxParallelism === undefined ? {} : { maxParallelism: options.maxParallelism }),
      ...(options.codec === undefined ? {} : { codec: options.codec }),
      ...(options.properties === undefined ? {} : { properties: options.properties }),
    });
    if (reader.partitionCount !== parallelism) {
      await reader.close();
      throw new ConfigurationError(
        `RepartitionSource '${sourceName}': topic '${options.topic}' has ${reader.partitionCount} partitions and the ` +
          `source has ${parallelism} subtasks; they must be equal, one partition (one key-group range) per subtask`,
      );
    }
    return reader;
  }
}
