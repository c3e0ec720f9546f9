// weir: the public entry point. Everything a job needs is exported here by name; internals stay internal.

// ── Environment and streams ──────────────────────────────────────────────────
export { StreamExecutionEnvironment } from './api/stream-execution-environment.ts';
export type {
  EnvironmentOptions,
  ExecuteOptions,
  JobExecutionResult,
} from './api/stream-execution-environment.ts';
export { DataStream, DataStreamSink } from './api/data-stream.ts';
export { KeyedStream } from './api/keyed-stream.ts';
export { ConnectedStreams } from './api/connected-streams.ts';
export type { CoMapFunction } from './api/connected-streams.ts';
export { JoinedStreams, JoinWhere, JoinEqualTo, JoinWithWindow } from './api/join/joined-streams.ts';
export {
  CoGroupedStreams,
  CoGroupWhere,
  CoGroupEqualTo,
  CoGroupWithWindow,
} from './api/join/co-grouped-streams.ts';
export { IntervalJoin, IntervalJoined } from './api/join/interval-join.ts';
export type { TaggedUnion } from './api/join/tagged-union.ts';

// ── Async I/O ────────────────────────────────────────────────────────────────
export { AsyncDataStream } from './api/async-data-stream.ts';
export type { AsyncFunction, RichAsyncFunction } from './api/async-function.ts';
export { AsyncRetryStrategies } from './api/async-retry-strategy.ts';
export type { AsyncRetryStrategy, RetryPredicates } from './api/async-retry-strategy.ts';
export { AsyncTimeoutError } from './api/async-timeout-error.ts';

// ── User functions ───────────────────────────────────────────────────────────
export type {
  KeySelector,
  MapFunction,
  FilterFunction,
  FlatMapFunction,
  Collector,
  TimerService,
  ProcessContext,
  OnTimerContext,
  ProcessFunction,
  KeyedProcessContext,
  KeyedOnTimerContext,
  KeyedProcessFunction,
  CoProcessFunction,
  KeyedCoProcessFunction,
  FunctionObject,
} from './api/functions.ts';
export type { RuntimeContext, RichFunction } from './api/runtime-context.ts';
export type {
  JoinFunction,
  FlatJoinFunction,
  CoGroupFunction,
  ProcessJoinFunction,
  ProcessJoinContext,
} from './api/join/join-functions.ts';
export type { AggregateFunction, ReduceFunction } from './state/aggregate-function.ts';
export type {
  Numeric,
  Comparable,
  FieldOf,
  NumericField,
  ComparableField,
} from './api/aggregation/aggregation-field.ts';

// ── Side outputs ─────────────────────────────────────────────────────────────
export { OutputTag } from './api/output-tag.ts';

// ── Time and watermarks ──────────────────────────────────────────────────────
export { Time } from './time/time.ts';
export { WatermarkStrategy } from './time/watermark-strategy.ts';
export type { TimestampAssigner, WatermarkGeneratorContext } from './time/watermark-strategy.ts';
export { BoundedOutOfOrdernessWatermarks } from './time/watermark-generator.ts';
export type { WatermarkGenerator, WatermarkOutput } from './time/watermark-generator.ts';
export type { TimeDomain } from './time/time-domain.ts';
export { MIN_WATERMARK, MAX_WATERMARK } from './time/time-domain.ts';
export { SystemClock, ManualClock } from './time/clock.ts';
export type { ProcessingTimeClock, ScheduledCallback } from './time/clock.ts';

// ── Keyed state ──────────────────────────────────────────────────────────────
export type {
  State,
  ValueState,
  ListState,
  MapState,
  ReducingState,
  AggregatingState,
  AppendingState,
} from './state/state.ts';
export {
  StateDescriptor,
  ValueStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  AggregatingStateDescriptor,
} from './state/state-descriptor.ts';
export type { StateDescriptorOptions } from './state/state-descriptor.ts';
export { StateTtlConfig } from './state/state-ttl-config.ts';
export type { TypeSerializer } from './state/type-serializer.ts';
export { DEFAULT_MAX_PARALLELISM } from './state/key-group-range.ts';

// ── Windows ──────────────────────────────────────────────────────────────────
export * from './windowing/index.ts';

// ── Complex event processing ─────────────────────────────────────────────────
export * from './cep/index.ts';

// ── Sources and sinks ────────────────────────────────────────────────────────
export type {
  Source,
  SourceReader,
  SourceReaderContext,
  ReaderOutput,
  PollResult,
} from './connectors/source.ts';
export type { Sink, SinkWriter, SinkWriterContext } from './connectors/sink.ts';
export { CollectionSource } from './connectors/collection-source.ts';
export { AsyncIterableSource } from './connectors/async-iterable-source.ts';
export type { AsyncIterableInput } from './connectors/async-iterable-source.ts';
export { CollectSink } from './connectors/collect-sink.ts';
export type { CollectedRecord } from './connectors/collect-sink.ts';
export { PrintSink } from './connectors/print-sink.ts';
export { GeneratorSource } from './connectors/generator-source.ts';
export type { GeneratorFunction, GeneratorSourceOptions } from './connectors/generator-source.ts';
export { SeededRandom } from './connectors/seeded-random.ts';
export { RateLimiter } from './connectors/rate-limiter.ts';
export { FileSource } from './connectors/file-source.ts';
export type {
  FileSourceOptions,
  JsonLinesSourceOptions,
  CsvSourceOptions,
  FileSourcePosition,
} from './connectors/file-source.ts';
export type { JsonLinesDecoding } from './connectors/json-lines-format.ts';
export type { CsvDecoding } from './connectors/csv-format.ts';
export type { MalformedRecord } from './connectors/malformed-record.ts';
export { FileSink } from './connectors/file-sink.ts';
export { AsyncSink } from './connectors/async-sink.ts';
export type { AsyncSinkOptions } from './connectors/async-sink.ts';
export type { FileSinkOptions } from './connectors/file-sink.ts';

// ── Fault tolerance ──────────────────────────────────────────────────────────
export * from './checkpoint/index.ts';

// ── Custom operators ─────────────────────────────────────────────────────────
export { AbstractStreamOperator } from './runtime/stream-operator.ts';
export type {
  OneInputStreamOperator,
  TwoInputStreamOperator,
  OperatorContext,
} from './runtime/stream-operator.ts';
export type { Output } from './runtime/output.ts';
export type { JobSnapshot, OperatorSnapshot } from './runtime/job-snapshot.ts';

// ── Errors ───────────────────────────────────────────────────────────────────
export {
  WeirError,
  ConfigurationError,
  IllegalStateError,
  JobExecutionError,
  MalformedRecordError,
} from './api/errors.ts';
export type { FailureLocation } from './api/errors.ts';
