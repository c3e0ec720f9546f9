// weir/kafka: the Kafka connectors. A separate entry point, so `import 'weir'` never loads a Kafka client.

// Source
export { KafkaSource, KafkaSourceBuilder } from './kafka-source.ts';
export { OffsetsInitializer } from './offsets-initializer.ts';
export {
  Deserializers,
  type DeserializationSchema,
  type KafkaConsumerRecord,
  type KafkaRecordDeserializationSchema,
} from './kafka-record-deserializer.ts';
export type { MalformedKafkaRecord } from './malformed-kafka-record.ts';
export { KafkaDeserializationError, type KafkaSplitPosition } from './kafka-source-reader.ts';

// Sink
export { KafkaSink, KafkaSinkBuilder } from './kafka-sink.ts';
export { DeliveryGuarantee } from '../../core/delivery-guarantee.ts';
export type { KafkaProducerRecord, KafkaRecordSerializationSchema } from './kafka-record-serializer.ts';
export { deadLetterRecords, DeadLetterHeaders } from './dead-letter-records.ts';

// Repartition exchange: a keyBy between processes through a topic partitioned by key group
export { RepartitionWriter, type RepartitionWriterOptions } from './repartition-writer.ts';
export {
  RepartitionReader,
  type RepartitionOutput,
  type RepartitionReaderOptions,
} from './repartition-reader.ts';
export type { MergedWatermarkState } from './merged-watermark.ts';
export { RepartitionSink, type RepartitionSinkOptions } from './repartition-sink.ts';
export { RepartitionSource, type RepartitionSourceOptions } from './repartition-source.ts';
export { jsonCodec, msgpackCodec, type RepartitionCodec } from './repartition-codec.ts';
export { keyGroupsOfPartition, partitionForKey, partitionForKeyGroup } from './repartition-partitioner.ts';
export type { RepartitionMarker } from './repartition-marker.ts';

// Scale-out: the job's consumer group assigns its tasks to processes
export {
  TaskMembership,
  type TaskGroupView,
  type TaskListener,
  type TaskMembershipOptions,
} from './task-membership.ts';

// Client
export { KafkaError, type KafkaProperties } from './kafka-client.ts';
export { KafkaClientBuilder, type KafkaSaslOptions, type KafkaTlsOptions } from './kafka-client-builder.ts';

// The contracts and types of weir that this entry's signatures name (the same declarations as weir's own exports).
export type {
  Source,
  SourceReader,
  SourceReaderContext,
  SplitEnumerator,
  SplitEnumeratorContext,
  ReaderOutput,
  SplitOutput,
  PollResult,
} from '../../core/source.ts';
export type { ProcessingTimeClock, ScheduledCallback } from '../../core/clock.ts';
export type { Logger, LogFields } from '../../core/logger.ts';
export type {
  Counter,
  Gauge,
  Histogram,
  HistogramStatistics,
  Meter,
  MetricGroup,
} from '../../core/metric-group.ts';
export type { Sink, SinkWriter, SinkWriterContext } from '../../core/sink.ts';
export type { OutputTag } from '../../core/output-tag.ts';
export type { WeirError } from '../../core/errors.ts';
export type { KeySelector } from '../../core/functions.ts';
