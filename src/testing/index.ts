// weir/testing: the test harness and manual clock for testing pipelines with controlled time.
export { TestHarness, OneInputTestHarness, TwoInputTestHarness } from './test-harness.ts';
export type { TestHarnessOptions, HarnessRecord } from './test-harness.ts';
export type { HarnessElement } from './harness-sink-operator.ts';
export { ManualClock } from '../core/clock.ts';
