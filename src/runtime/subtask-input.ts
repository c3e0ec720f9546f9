// SubtaskInput: one input of one subtask: sets the key context, calls the operator, and names the record on failure.
import type { KeySelector } from '../core/functions.ts';
import type { KeyedStateBackend } from '../state/keyed-state-backend.ts';
import { performance } from 'node:perf_hooks';
import type { BusyTimeTracker } from './busy-time-tracker.ts';
import type { Subtask } from './subtask.ts';

/** The record-processing entry points of an operator: one-input, or the first / second of a two-input operator. */
interface ElementSink {
  processElement?(value: unknown, timestamp: number): void;
  processElement1?(value: unknown, timestamp: number): void;
  processElement2?(value: unknown, timestamp: number): void;
}

/** Which entry point of the operator an input calls: 0 = processElement, 1 = processElement1, 2 = processElement2. */
export type InputSlot = 0 | 1 | 2;

/**
 * The record path into an operator, shared by the input's channels (one per producer subtask, see InputChannel). For a keyed input the runtime sets the current key before the operator sees
 * the record (Flink's setKeyContextElement). A failure is wrapped once, at the innermost operator, into a
 * JobExecutionError naming operator, subtask and record; operators upstream pass it on untouched.
 */
export class SubtaskInput {
  recordsIn = 0;
  /**
   * The operator's entry point for this input, called as `entry.call(operator, ...)` rather than through a bound
   * function: V8 reduces `.call` to a plain call, while every bound function adds a trampoline on the record path.
   */
  private readonly entry: (value: unknown, timestamp: number) => void;
  constructor(
    readonly subtask: Subtask,
    readonly operator: ElementSink,
    readonly slot: InputSlot,
    readonly keySelector: KeySelector<any, unknown> | undefined,
    readonly backend: KeyedStateBackend | undefined,
    /** Shared by the job: while it is active (a sampled batch), every hop times itself. */
    readonly timing: BusyTimeTracker,
  ) {
    const entry =
      slot === 0 ? operator.processElement : slot === 1 ? operator.processElement1 : operator.processElement2;
    this.entry = entry!;
  }

  /** A record whose key the hash exchange already extracted with `selector`. */
  processKeyed(value: unknown, timestamp: number, key: unknown, selector: KeySelector<any, unknown>): void {
    if (selector !== this.keySelector) {
      this.process(value, timestamp);
      return;
    }
    this.recordsIn++;
    if (this.timing.active) {
      this.processTimed(value, timestamp, key, true);
      return;
    }
    try {
      this.backend!.setCurrentKey(key);
      this.entry.call(this.operator, value, timestamp);
    } catch (error) {
      throw this.subtask.failure(error, { value, timestamp });
    }
  }

  // `process` and `processKeyed` repeat the bodies of processRecord and processKeyedRecord instead of calling them:
  // a hop is then one call shorter, and every call on the record path is inlined into the source's loop, where V8's
  // budget for inlined code decides how far down the chain the optimised code reaches (docs/performance.md).
  process(value: unknown, timestamp: number): void {
    this.recordsIn++;
    if (this.timing.active) {
      this.processTimed(value, timestamp, undefined, false);
      return;
    }
    try {
      const keySelector = this.keySelector;
      if (keySelector !== undefined) this.backend!.setCurrentKey(keySelector(value));
      this.entry.call(this.operator, value, timestamp);
    } catch (error) {
      throw this.subtask.failure(error, { value, timestamp });
    }
  }

  private processKeyedRecord(value: unknown, timestamp: number, key: unknown): void {
    try {
      this.backend!.setCurrentKey(key);
      this.entry.call(this.operator, value, timestamp);
    } catch (error) {
      throw this.subtask.failure(error, { value, timestamp });
    }
  }

  /** One record of a sampled batch: its self time and back-pressured time go to this subtask. */
  private processTimed(value: unknown, timestamp: number, key: unknown, keyed: boolean): void {
    const timing = this.timing;
    const outer = timing.beginHop();
    const start = performance.now();
    try {
      if (keyed) this.processKeyedRecord(value, timestamp, key);
      else this.processRecord(value, timestamp);
    } finally {
      timing.endHop(this.subtask.time, outer, start);
    }
  }

  private processRecord(value: unknown, timestamp: number): void {
    try {
      if (this.keySelector !== undefined) this.backend!.setCurrentKey(this.keySelector(value));
      this.entry.call(this.operator, value, timestamp);
    } catch (error) {
      throw this.subtask.failure(error, { value, timestamp });
    }
  }
}
