// weir: the public entry point. Everything a job needs is exported here by name; internals stay internal.

// ── Environment and streams ──────────────────────────────────────────────────
export { StreamExecutionEnvironment } from './api/stream-execution-environment.ts';
export type { EnvironmentOptions, ExecuteOptions } from './api/stream-execution-environment.ts';
export type { ClusterOptions } from './execution/cluster/cluster-options.ts';
export type { WebUiOptions } from './web/web-server.ts';
export type { RecordDisplay } from './core/record-display.ts';
export type { JobExecutionResult } from './execution/job-execution-result.ts';
export type { OperatorMetrics } from './runtime/job-runtime.ts';
export { DataStream, DataStreamSink } from './api/data-stream.ts';
export type { KeyOf, ElementOf, ConnectedKey, NotAsync } from './api/data-stream.ts';
export { KeyedStream } from './api/keyed-stream.ts';
export { ConnectedStreams } from './api/connected-streams.ts';
export type { CoMapFunction, CoFlatMapFunction } from './api/connected-streams.ts';
export { BroadcastStream } from './api/broadcast/broadcast-stream.ts';
export { BroadcastConnectedStream } from './api/broadcast/broadcast-connected-stream.ts';
export type {
  BroadcastProcessFunction,
  KeyedBroadcastProcessFunction,
  BroadcastBaseContext,
  BroadcastContext,
  BroadcastReadOnlyContext,
  KeyedBroadcastContext,
  KeyedBroadcastReadOnlyContext,
  KeyedBroadcastOnTimerContext,
  KeyedStateFunction,
} from './core/broadcast-process-function.ts';
export type { BroadcastState, ReadOnlyBroadcastState } from './core/broadcast-state.ts';
export { JoinedStreams, JoinWhere, JoinEqualTo, JoinWithWindow } from './api/join/joined-streams.ts';
export {
  CoGroupedStreams,
  CoGroupWhere,
  CoGroupEqualTo,
  CoGroupWithWindow,
} from './api/join/co-grouped-streams.ts';
export { IntervalJoin, IntervalJoined } from './api/join/interval-join.ts';
export type { TaggedUnion } from './api/join/tagged-union.ts';
// Record types (stream.returns(...)): how records are written between worker threads
export { Types, RecordType } from './core/record-type.ts';
export type { FieldType, FieldValue, RecordOf } from './core/record-type.ts';

// ── Async I/O ────────────────────────────────────────────────────────────────
export { AsyncDataStream } from './api/async-data-stream.ts';
export type { AsyncFunction, RichAsyncFunction } from './core/async-function.ts';
export { AsyncRetryStrategies } from './core/async-retry-strategy.ts';
export type { AsyncRetryStrategy, RetryPredicates } from './core/async-retry-strategy.ts';
export { AsyncTimeoutError } from './core/async-timeout-error.ts';

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
} from './core/functions.ts';
export type { RuntimeContext, RichFunction } from './core/runtime-context.ts';
export type {
  JoinFunction,
  FlatJoinFunction,
  CoGroupFunction,
  ProcessJoinFunction,
  ProcessJoinContext,
} from './core/join-functions.ts';
export type { AggregateFunction, AggregateOptions, ReduceFunction } from './core/aggregate-function.ts';
export type {
  Numeric,
  Comparable,
  FieldOf,
  NumericField,
  ComparableField,
  TupleIndexOf,
} from './api/aggregation/aggregation-field.ts';

// ── Side outputs ─────────────────────────────────────────────────────────────
export { OutputTag } from './core/output-tag.ts';

// ── Time and watermarks ──────────────────────────────────────────────────────
export { Time } from './time/time.ts';
export { WatermarkStrategy } from './time/watermark-strategy.ts';
export type { WatermarkEmission, WatermarkEmissionMode } from './time/watermark-emission.ts';
export type { WatermarkAlignment } from './time/watermark-alignment.ts';
export type { TimestampAssigner, WatermarkGeneratorContext } from './time/watermark-strategy.ts';
export { BoundedOutOfOrdernessWatermarks } from './time/watermark-generator.ts';
export type { WatermarkGenerator, WatermarkOutput } from './time/watermark-generator.ts';
export type { TimeDomain } from './core/time-domain.ts';
export { MIN_WATERMARK, MAX_WATERMARK } from './core/time-domain.ts';
export { SystemClock, ManualClock } from './core/clock.ts';
export type { ProcessingTimeClock, ScheduledCallback } from './core/clock.ts';

// ── Keyed state ──────────────────────────────────────────────────────────────
export type {
  State,
  ValueState,
  ListState,
  MapState,
  ReducingState,
  AggregatingState,
  AppendingState,
} from './core/state.ts';
export {
  StateDescriptor,
  ValueStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  AggregatingStateDescriptor,
} from './core/state-descriptor.ts';
export type {
  StateDescriptorOptions,
  StateKind,
  ValueStateDescriptorConstructor,
  ValueStateDescriptorOptions,
} from './core/state-descriptor.ts';
export { StateTtlConfig, StateTtlConfigBuilder } from './core/state-ttl-config.ts';
export type { TtlUpdateType } from './core/state-ttl-config.ts';
export type { NamespaceHashing, NamespaceSerializer } from './state/namespace.ts';
export type { TypeSerializer, StateClass } from './core/type-serializer.ts';
export { DEFAULT_MAX_PARALLELISM } from './state/key-group-range.ts';

// ── Windows ──────────────────────────────────────────────────────────────────
// Windowed streams (keyedStream.window(...), stream.windowAll(...), countWindow)
export { WindowedStream, countWindow } from './api/windowed-stream.ts';
export { AllWindowedStream, countWindowAll } from './api/all-windowed-stream.ts';

// Windows
export type { Window } from './windowing/window.ts';
export { TimeWindow, timeWindowSerializer } from './windowing/time-window.ts';
export { GlobalWindow, globalWindowSerializer } from './windowing/global-window.ts';

// Assigners
export {
  WindowAssigner,
  MergingWindowAssigner,
  type WindowAssignerContext,
} from './windowing/window-assigner.ts';
export { TumblingEventTimeWindows } from './windowing/assigners/tumbling-event-time-windows.ts';
export { TumblingProcessingTimeWindows } from './windowing/assigners/tumbling-processing-time-windows.ts';
export { SlidingEventTimeWindows } from './windowing/assigners/sliding-event-time-windows.ts';
export { SlidingProcessingTimeWindows } from './windowing/assigners/sliding-processing-time-windows.ts';
export { EventTimeSessionWindows } from './windowing/assigners/event-time-session-windows.ts';
export { ProcessingTimeSessionWindows } from './windowing/assigners/processing-time-session-windows.ts';
export {
  DynamicEventTimeSessionWindows,
  type SessionWindowTimeGapExtractor,
} from './windowing/assigners/dynamic-event-time-session-windows.ts';
export { DynamicProcessingTimeSessionWindows } from './windowing/assigners/dynamic-processing-time-session-windows.ts';
export { GlobalWindows } from './windowing/assigners/global-windows.ts';

// Triggers
export { Trigger, type TriggerContext, type OnMergeContext } from './windowing/trigger.ts';
export { TriggerResult, isFire, isPurge, triggerResultName } from './windowing/trigger-result.ts';
export { EventTimeTrigger } from './windowing/triggers/event-time-trigger.ts';
export { ProcessingTimeTrigger } from './windowing/triggers/processing-time-trigger.ts';
export { CountTrigger } from './windowing/triggers/count-trigger.ts';
export { PurgingTrigger } from './windowing/triggers/purging-trigger.ts';
export { DeltaTrigger } from './windowing/triggers/delta-trigger.ts';
export { ContinuousEventTimeTrigger } from './windowing/triggers/continuous-event-time-trigger.ts';
export { ContinuousProcessingTimeTrigger } from './windowing/triggers/continuous-processing-time-trigger.ts';
export { ProcessingTimeoutTrigger } from './windowing/triggers/processing-timeout-trigger.ts';
export { NeverTrigger } from './windowing/triggers/never-trigger.ts';
export { EndOfStreamTrigger } from './windowing/triggers/end-of-stream-trigger.ts';
export type { DeltaFunction } from './windowing/delta-function.ts';

// Evictors
export {
  type Evictor,
  type EvictorContext,
  type TimestampedValue,
  removeElementsWhere,
} from './windowing/evictor.ts';
export { CountEvictor } from './windowing/evictors/count-evictor.ts';
export { TimeEvictor } from './windowing/evictors/time-evictor.ts';
export { DeltaEvictor } from './windowing/evictors/delta-evictor.ts';

// Window functions
export type {
  ProcessWindowFunction,
  ProcessWindowContext,
  ProcessAllWindowFunction,
  ProcessAllWindowContext,
  WindowFunction,
  AllWindowFunction,
  KeyedStateStore,
} from './windowing/process-window-function.ts';

// ── Complex event processing ─────────────────────────────────────────────────
// Patterns
export { Pattern, GroupPattern } from './cep/pattern/pattern.ts';
export type {
  PatternMatch,
  QuantifierOptions,
  SubtypeSelector,
  NoStages,
  Simplify,
} from './cep/pattern/pattern.ts';
export type { Condition, ConditionContext, IterativeCondition } from './cep/pattern/conditions.ts';
export { WithinType } from './cep/pattern/within-type.ts';
export { Quantifier, Times } from './cep/pattern/quantifier.ts';
export type { ConsumingStrategy, QuantifierProperty } from './cep/pattern/quantifier.ts';
export { MalformedPatternError } from './cep/pattern/malformed-pattern-error.ts';
export { AfterMatchSkipStrategy } from './cep/nfa/after-match-skip-strategy.ts';

// Applying patterns
export { CEP } from './api/cep.ts';
export { PatternStream } from './api/pattern-stream.ts';
export type {
  PatternFlatSelectFunction,
  PatternProcessContext,
  PatternProcessFunction,
  PatternSelectFunction,
  PatternTimeoutFunction,
  TimedOutPartialMatchHandler,
} from './cep/functions.ts';
export type { EventComparator } from './cep/operator/cep-operator.ts';

// ── Sources and sinks ────────────────────────────────────────────────────────
export type {
  Source,
  SourceReader,
  SourceReaderContext,
  ReaderOutput,
  SplitOutput,
  PollResult,
  SplitEnumerator,
  SplitEnumeratorContext,
} from './core/source.ts';
export type { SequenceSplit } from './connectors/sequence-split.ts';
export type { Sink, SinkWriter, SinkWriterContext } from './core/sink.ts';
export { CollectionSource } from './connectors/collection-source.ts';
export { AsyncIterableSource } from './connectors/async-iterable-source.ts';
export type { AsyncIterableInput } from './connectors/async-iterable-source.ts';
export { CollectSink } from './connectors/collect-sink.ts';
export type { CollectedRecord } from './connectors/collect-sink.ts';
export { PrintSink } from './connectors/print-sink.ts';
export { GeneratorSource } from './connectors/generator-source.ts';
export type {
  GeneratorFunction,
  GeneratorSourceOptions,
  GeneratorSplit,
} from './connectors/generator-source.ts';
export { SeededRandom } from './connectors/seeded-random.ts';
export { RateLimiter } from './connectors/rate-limiter.ts';
export { FileSource } from './connectors/file-source.ts';
export type {
  FileSourceOptions,
  JsonLinesSourceOptions,
  CsvSourceOptions,
  CsvTypedOptions,
} from './connectors/file-source.ts';
export type { FileSourceSplit } from './connectors/file-source-split.ts';
export type {
  CsvColumnParser,
  CsvParsers,
  CsvParsersFor,
  CsvRow,
  NoParsers,
  OnlyColumns,
  ParsedColumns,
} from './connectors/csv-row.ts';
export type { JsonLinesDecoding } from './connectors/json-lines-format.ts';
export type { CsvDecoding } from './connectors/csv-format.ts';
export type { MalformedRecord } from './connectors/malformed-record.ts';
export type { FileOffset } from './connectors/file-format.ts';
export { FileSink } from './connectors/file-sink.ts';
export { AsyncSink } from './connectors/async-sink.ts';
export type { AsyncSinkOptions } from './connectors/async-sink.ts';
export type { FileSinkOptions, FileSinkDeliveryGuarantee } from './connectors/file-sink.ts';
export { DeliveryGuarantee } from './core/delivery-guarantee.ts';

// ── Fault tolerance ──────────────────────────────────────────────────────────
// ── Configuration ────────────────────────────────────────────────────────────
export type {
  CheckpointingOptions,
  CheckpointConfig,
  CheckpointEvent,
} from './execution/checkpoint-config.ts';
export { RestartStrategies } from './execution/restart-strategies.ts';
export type { RestartStrategy, ExponentialDelayOptions } from './execution/restart-strategies.ts';

// ── State backends ───────────────────────────────────────────────────────────
export { StateBackends, HeapStateBackend } from './state/state-backend.ts';
export type { StateBackend } from './state/state-backend.ts';

// ── Running jobs, savepoints ─────────────────────────────────────────────────
export { JobClient } from './execution/job-client.ts';
export type { JobStatus } from './execution/running-job.ts';
export { JobCancelledError } from './execution/job-cancelled-error.ts';
export { CheckpointFailureError } from './execution/checkpoint-coordinator.ts';
export {
  loadSavepoint,
  loadLatestCheckpoint,
  loadSnapshotDirectory,
} from './execution/checkpoint-storage.ts';
export type { LoadedCheckpoint } from './execution/checkpoint-storage.ts';
export { CorruptCheckpointError } from './execution/checkpoint-metadata.ts';
export type { CheckpointMetadata, OperatorMetadata, BlobRef } from './execution/checkpoint-metadata.ts';
export type {
  CheckpointedJobSnapshot,
  CheckpointedOperatorSnapshot,
} from './runtime/checkpointed-job-snapshot.ts';

// ── Metrics ──────────────────────────────────────────────────────────────────
export type {
  MetricGroup,
  Counter,
  Gauge,
  Histogram,
  HistogramStatistics,
  Meter,
} from './core/metric-group.ts';
export type { MetricScope } from './metrics/metric-group.ts';
export { SimpleCounter } from './metrics/counter.ts';
export { DescriptiveStatisticsHistogram } from './metrics/histogram.ts';
export { MeterView } from './metrics/meter.ts';
export type { View } from './metrics/meter.ts';
export { metricKind, metricValue } from './metrics/metric.ts';
export type { Metric, MetricKind } from './metrics/metric.ts';
export type { MetricReporter } from './metrics/metric-reporter.ts';
export type { MetricRegistryOptions } from './metrics/metric-registry.ts';

// ── Logging ──────────────────────────────────────────────────────────────────
export { createLogger } from './core/logger.ts';
export type { Logger, LoggerOptions, LogFields, LogLevel } from './core/logger.ts';

// ── Custom operators ─────────────────────────────────────────────────────────
export { AbstractStreamOperator } from './operators/stream-operator.ts';
export type {
  OneInputStreamOperator,
  TwoInputStreamOperator,
  OperatorContext,
  SnapshotContext,
} from './operators/stream-operator.ts';
export type { Output } from './operators/output.ts';
export type {
  InternalTimer,
  InternalTimerService,
  KeyListTimers,
  Triggerable,
} from './time/internal-timer-service.ts';
export type { OperatorStateDistribution } from './operators/operator-state-distribution.ts';
export type { JobSnapshot, OperatorSnapshot } from './runtime/job-snapshot.ts';
export type { KeyGroupSnapshot } from './state/keyed-state-backend.ts';

// ── Errors ───────────────────────────────────────────────────────────────────
export {
  WeirError,
  ConfigurationError,
  IllegalStateError,
  JobExecutionError,
  JobLoadError,
  MalformedRecordError,
  JobStalledError,
} from './core/errors.ts';
export type { FailureLocation } from './core/errors.ts';
export { RecordSerializationError } from './runtime/thread-exchange.ts';
