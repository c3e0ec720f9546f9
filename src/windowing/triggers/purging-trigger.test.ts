// PurgingTrigger around a scripted trigger: what it answers for each nested result, and what it forwards (Flink's PurgingTriggerTest).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TriggerTestHarness } from '../../../test/support/trigger-test-harness.ts';
import { TimeWindow, timeWindowSerializer } from '../time-window.ts';
import { Trigger, type OnMergeContext, type TriggerContext } from '../trigger.ts';
import { TriggerResult } from '../trigger-result.ts';
import { PurgingTrigger } from './purging-trigger.ts';

const { CONTINUE, FIRE, PURGE, FIRE_AND_PURGE } = TriggerResult;

/** Answers `next` from every callback and records the calls it gets; its first element sets timers at 1 to 4. */
class ScriptedTrigger extends Trigger<number, TimeWindow> {
  next: TriggerResult = CONTINUE;
  readonly calls: string[] = [];

  onElement(element: number, _ts: number, window: TimeWindow, ctx: TriggerContext): TriggerResult {
    this.calls.push(`onElement ${element}`);
    if (element === 0) {
      for (const t of [1, 2, 3, 4]) {
        ctx.registerEventTimeTimer(t);
        ctx.registerProcessingTimeTimer(t);
      }
    }
    return this.next;
  }
  onEventTime(time: number): TriggerResult {
    this.calls.push(`onEventTime ${time}`);
    return this.next;
  }
  onProcessingTime(time: number): TriggerResult {
    this.calls.push(`onProcessingTime ${time}`);
    return this.next;
  }
  override canMerge(): boolean {
    return true;
  }
  override onMerge(window: TimeWindow, _ctx: OnMergeContext): void {
    this.calls.push(`onMerge [${window.start},${window.end})`);
  }
  clear(window: TimeWindow): void {
    this.calls.push(`clear [${window.start},${window.end})`);
  }
}

describe('PurgingTrigger', () => {
  it('turns every firing of the nested trigger into a firing that purges, and passes the rest on', () => {
    const nested = new ScriptedTrigger();
    const h = new TriggerTestHarness(PurgingTrigger.of(nested), timeWindowSerializer);
    const w = new TimeWindow(0, 10);
    const answers = (call: () => TriggerResult) =>
      [CONTINUE, FIRE, PURGE, FIRE_AND_PURGE].map((r) => {
        nested.next = r;
        return call();
      });
    assert.deepEqual(
      answers(() => h.processElement(0, 0, w)),
      [CONTINUE, FIRE_AND_PURGE, PURGE, FIRE_AND_PURGE],
    );
    assert.equal(h.numEventTimeTimers(w), 4);
    assert.equal(h.numProcessingTimeTimers(w), 4);
    let t = 0;
    assert.deepEqual(
      answers(() => h.invokeOnEventTime(++t, w)),
      [CONTINUE, FIRE_AND_PURGE, PURGE, FIRE_AND_PURGE],
    );
    const firings: string[] = [];
    t = 0;
    for (const r of [CONTINUE, FIRE, PURGE, FIRE_AND_PURGE]) {
      nested.next = r;
      firings.push(...h.advanceProcessingTime(++t));
    }
    assert.deepEqual(firings, [
      '[0,10) CONTINUE',
      '[0,10) FIRE_AND_PURGE',
      '[0,10) PURGE',
      '[0,10) FIRE_AND_PURGE',
    ]);
    assert.equal(PurgingTrigger.of(nested).canMerge(), true);
    nested.calls.length = 0;
    h.mergeWindows(w, [new TimeWindow(0, 5)]);
    h.clearTriggerState(w);
    assert.deepEqual(nested.calls, ['onMerge [0,10)', 'clear [0,5)', 'clear [0,10)']);
    assert.equal(String(PurgingTrigger.of(nested)), 'PurgingTrigger(ScriptedTrigger())');
  });
});
