// The window types and trigger results on their own: equality, names, merging of sorted groups, result flags.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GlobalWindow } from './global-window.ts';
import { fixedSizeTimeWindowSerializer, TimeWindow, timeWindowSerializer } from './time-window.ts';
import type { TriggerContext } from './trigger.ts';
import { isFire, isPurge, TriggerResult, triggerResultName } from './trigger-result.ts';
import { DeltaTrigger } from './triggers/delta-trigger.ts';

describe('windows and trigger results', () => {
  it('a TimeWindow equals another of the same start and end only', () => {
    const w = new TimeWindow(0, 10);
    assert.deepEqual(
      [new TimeWindow(0, 10), new TimeWindow(0, 11), new TimeWindow(1, 10), { start: 0, end: 10 }].map((o) =>
        w.equals(o),
      ),
      [true, false, false, false],
    );
  });

  it("a session window's hash is start + 31 * end folded into a small integer, and equals compares both ends", () => {
    const { hash, equals } = timeWindowSerializer.hashing!;
    const start = 1_700_000_000_000;
    const windows = [
      new TimeWindow(start, start + 10_000),
      new TimeWindow(start, start + 10_001),
      new TimeWindow(start + 1, start + 10_000),
      new TimeWindow(-5, 3),
    ];
    assert.deepEqual(
      windows.map((w) => hash(w)),
      [1_018_280_688, 1_018_280_719, 1_018_280_689, 88],
    );
    assert.ok(windows.every((w) => Number.isInteger(hash(w)) && hash(w) >= 0 && hash(w) < 2 ** 30));
    assert.equal(hash(undefined as unknown as TimeWindow), 0, 'a handle without a window yet');
    assert.deepEqual(
      windows.map((w) => equals(w, new TimeWindow(start, start + 10_000))),
      [true, false, false, false],
    );
    const none = undefined as unknown as TimeWindow;
    assert.deepEqual([equals(none, windows[0]!), equals(windows[0]!, none)], [false, false]);
  });

  it("a fixed-size window's hash is its start's low 30 bits, and equals compares starts as its key does", () => {
    const { hash, equals } = fixedSizeTimeWindowSerializer.hashing!;
    const start = 1_700_000_000_000;
    const windows = [
      new TimeWindow(start, start + 10_000),
      new TimeWindow(start + 2_000, start + 12_000),
      new TimeWindow(start + 2 ** 30, start + 2 ** 30 + 10_000),
      new TimeWindow(-5, 5),
    ];
    assert.deepEqual(
      windows.map((w) => hash(w)),
      [266_692_608, 266_694_608, 266_692_608, 1_073_741_819],
    );
    assert.ok(windows.every((w) => Number.isInteger(hash(w)) && hash(w) >= 0 && hash(w) < 2 ** 30));
    assert.equal(hash(undefined as unknown as TimeWindow), 0, 'a handle without a window yet');
    assert.deepEqual(
      windows.map((w) => equals(w, new TimeWindow(start, start + 10_000))),
      [true, false, false, false],
    );
    assert.deepEqual(
      windows.map(
        (w) => fixedSizeTimeWindowSerializer.key(w) === fixedSizeTimeWindowSerializer.key(windows[0]!),
      ),
      [true, false, false, false],
    );
    const none = undefined as unknown as TimeWindow;
    assert.deepEqual([equals(none, windows[0]!), equals(windows[0]!, none)], [false, false]);
  });

  it('the global window equals only itself and names itself', () => {
    const g = GlobalWindow.get();
    assert.equal(g.equals(GlobalWindow.get()), true);
    assert.equal(g.equals(new TimeWindow(0, 10)), false);
    assert.equal(String(g), 'GlobalWindow');
  });

  it('mergeWindows leaves its input in order and reports each group of more than one window', () => {
    const input = [
      new TimeWindow(10, 13),
      new TimeWindow(0, 3),
      new TimeWindow(2, 5),
      new TimeWindow(20, 21),
    ];
    const groups: string[] = [];
    TimeWindow.mergeWindows(input, (merged, result) =>
      groups.push(
        `${merged.map((w) => `[${w.start},${w.end})`).join(' ')} -> [${result.start},${result.end})`,
      ),
    );
    assert.deepEqual(groups, ['[0,3) [2,5) -> [0,5)']);
    assert.deepEqual(
      input.map((w) => w.start),
      [10, 0, 2, 20],
    );
    TimeWindow.mergeWindows([], () => assert.fail('nothing to merge'));
    TimeWindow.mergeWindows([new TimeWindow(0, 1)], () => assert.fail('nothing to merge'));
  });

  it('isFire and isPurge read the two flags of a result, and an unknown result is named by its number', () => {
    const all = [
      TriggerResult.CONTINUE,
      TriggerResult.FIRE,
      TriggerResult.PURGE,
      TriggerResult.FIRE_AND_PURGE,
    ];
    assert.deepEqual(all.map(isFire), [false, true, false, true]);
    assert.deepEqual(all.map(isPurge), [false, false, true, true]);
    assert.deepEqual(all.map(triggerResultName), ['CONTINUE', 'FIRE', 'PURGE', 'FIRE_AND_PURGE']);
    assert.equal(triggerResultName(7 as TriggerResult), 'TriggerResult(7)');
  });

  it('a trigger that cannot merge refuses onMerge, naming itself', () => {
    const trigger = DeltaTrigger.of(1, function distance(a: number, b: number) {
      return b - a;
    });
    assert.throws(
      () => trigger.onMerge(new TimeWindow(0, 1), undefined as unknown as TriggerContext as never),
      {
        message: 'Trigger DeltaTrigger(distance, 1) does not support merging.',
      },
    );
  });
});
