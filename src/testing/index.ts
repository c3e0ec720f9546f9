// weir/testing: the test harness and manual clock for testing pipelines with controlled time.
export { TestHarness, OneInputTestHarness, TwoInputTestHarness } from './test-harness.ts';
export type { TestHarnessOptions, HarnessRecord, HarnessTimer, HarnessTimerQuery } from './test-harness.ts';
export type { HarnessElement } from './harness-sink-operator.ts';
export { ManualClock } from '../core/clock.ts';

// The types of weir that this entry's signatures name (the same declarations as weir's own exports). DataStream is
// not repeated here: it would bring the whole of weir's API into this entry; harness code imports it from 'weir'.
export type { ProcessingTimeClock, ScheduledCallback } from '../core/clock.ts';
export type { LogFields, Logger } from '../core/logger.ts';
export type { OutputTag } from '../core/output-tag.ts';
export type { JobSnapshot, OperatorSnapshot } from '../runtime/job-snapshot.ts';
export type { KeyGroupSnapshot } from '../state/keyed-state-backend.ts';
export type { WatermarkEmissionMode } from '../time/watermark-emission.ts';
