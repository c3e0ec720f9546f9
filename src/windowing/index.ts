// The public surface of windowing: assigners, windows, triggers, evictors, window functions and windowed streams.

// Windowed streams (keyedStream.window(...), stream.windowAll(...), countWindow)
export { WindowedStream, countWindow } from './windowed-stream.ts';
export { AllWindowedStream, countWindowAll } from './all-windowed-stream.ts';

// Windows
export type { Window } from './window.ts';
export {
  TimeWindow,
  timeWindowSerializer,
  fixedSizeTimeWindowSerializer,
  timeWindowTypeSerializer,
} from './time-window.ts';
export { GlobalWindow, globalWindowSerializer } from './global-window.ts';

// Assigners
export { WindowAssigner, MergingWindowAssigner, type WindowAssignerContext } from './window-assigner.ts';
export { TumblingEventTimeWindows } from './assigners/tumbling-event-time-windows.ts';
export { TumblingProcessingTimeWindows } from './assigners/tumbling-processing-time-windows.ts';
export { SlidingEventTimeWindows } from './assigners/sliding-event-time-windows.ts';
export { SlidingProcessingTimeWindows } from './assigners/sliding-processing-time-windows.ts';
export { EventTimeSessionWindows } from './assigners/event-time-session-windows.ts';
export { ProcessingTimeSessionWindows } from './assigners/processing-time-session-windows.ts';
export {
  DynamicEventTimeSessionWindows,
  type SessionWindowTimeGapExtractor,
} from './assigners/dynamic-event-time-session-windows.ts';
export { DynamicProcessingTimeSessionWindows } from './assigners/dynamic-processing-time-session-windows.ts';
export { GlobalWindows } from './assigners/global-windows.ts';

// Triggers
export { Trigger, type TriggerContext, type OnMergeContext } from './trigger.ts';
export { TriggerResult, isFire, isPurge, triggerResultName } from './trigger-result.ts';
export { EventTimeTrigger } from './triggers/event-time-trigger.ts';
export { ProcessingTimeTrigger } from './triggers/processing-time-trigger.ts';
export { CountTrigger } from './triggers/count-trigger.ts';
export { PurgingTrigger } from './triggers/purging-trigger.ts';
export { DeltaTrigger } from './triggers/delta-trigger.ts';
export { ContinuousEventTimeTrigger } from './triggers/continuous-event-time-trigger.ts';
export { ContinuousProcessingTimeTrigger } from './triggers/continuous-processing-time-trigger.ts';
export { ProcessingTimeoutTrigger } from './triggers/processing-timeout-trigger.ts';
export { NeverTrigger } from './triggers/never-trigger.ts';
export { EndOfStreamTrigger } from './triggers/end-of-stream-trigger.ts';
export type { DeltaFunction } from './delta-function.ts';

// Evictors
export { type Evictor, type EvictorContext, type TimestampedValue, removeElementsWhere } from './evictor.ts';
export { CountEvictor } from './evictors/count-evictor.ts';
export { TimeEvictor } from './evictors/time-evictor.ts';
export { DeltaEvictor } from './evictors/delta-evictor.ts';

// Window functions
export type {
  ProcessWindowFunction,
  ProcessWindowContext,
  ProcessAllWindowFunction,
  ProcessAllWindowContext,
  WindowFunction,
  AllWindowFunction,
  KeyedStateStore,
} from './process-window-function.ts';

// The operator, for custom transformations and tests
export {
  WindowOperator,
  type WindowOperatorConfig,
  type WindowStateDescriptor,
} from './operator/window-operator.ts';
