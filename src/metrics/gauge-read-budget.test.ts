// GaugeReadBudget: a gauge is read again only after GAUGE_READ_SHARE's multiple of its last read; other kinds always.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { performance } from 'node:perf_hooks';
import { GAUGE_MAX_STALE_MS, GAUGE_READ_SHARE, GaugeReadBudget } from './gauge-read-budget.ts';

/** The budget's clock, stepped by the test and by the gauges' reads. */
let clock = 0;

/** A gauge whose read takes `costMs` of the clock and returns `value.current`; counts its reads. */
function gauge(costMs: number, value = { current: 0 }) {
  const g = {
    reads: 0,
    getValue(): number {
      g.reads++;
      clock += costMs;
      return value.current;
    },
  };
  return g;
}

describe('GaugeReadBudget', () => {
  beforeEach(() => {
    clock = 1_000;
    mock.method(performance, 'now', () => clock);
  });
  afterEach(() => mock.restoreAll());

  it('reads a costly gauge again only once 1 / GAUGE_READ_SHARE - 1 times its read time has passed', () => {
    const budget = new GaugeReadBudget();
    const held = { current: 7 };
    const costly = gauge(10, held);
    assert.equal(budget.value(costly), 7);
    // Read from 1,000 to 1,010: the next read no sooner than 1,010 + 10 * 499.
    const next = 1_010 + 10 * (1 / GAUGE_READ_SHARE - 1);
    held.current = 8;
    clock = next - 1;
    assert.equal(budget.value(costly), 7, 'as read then');
    assert.equal(costly.reads, 1);
    clock = next;
    assert.equal(budget.value(costly), 8);
    assert.equal(costly.reads, 2);
  });

  it('reads a gauge whose read once took long again within GAUGE_MAX_STALE_MS', () => {
    const budget = new GaugeReadBudget();
    const held = { current: 0 };
    // A 40 ms read (the thread descheduled mid-read): 499 times that would be 19,960 ms.
    const hiccup = gauge(40, held);
    assert.equal(budget.value(hiccup), 0);
    held.current = 2;
    clock = 1_040 + GAUGE_MAX_STALE_MS - 1;
    assert.equal(budget.value(hiccup), 0, 'as read then');
    clock = 1_040 + GAUGE_MAX_STALE_MS;
    assert.equal(budget.value(hiccup), 2);
    assert.equal(hiccup.reads, 2);
  });

  it('reads a gauge that costs nothing every time, and counters, meters and histograms without the clock', () => {
    const budget = new GaugeReadBudget();
    const held = { current: 1 };
    const cheap = gauge(0, held);
    for (let i = 1; i <= 3; i++) {
      held.current = i;
      assert.equal(budget.value(cheap), i);
    }
    assert.equal(cheap.reads, 3);
    const reads = (performance.now as unknown as { mock: { callCount(): number } }).mock;
    const before = reads.callCount();
    let count = 0;
    const counter = { inc() {}, dec() {}, getCount: () => ++count };
    assert.deepEqual([budget.value(counter), budget.value(counter)], [1, 2]);
    assert.equal(reads.callCount() - before, 0);
  });

  it('keeps each gauge apart, and tries a gauge that threw again at its next read', () => {
    const budget = new GaugeReadBudget();
    const costly = gauge(10, { current: 1 });
    const cheap = gauge(0, { current: 2 });
    let fail = true;
    const flaky = {
      getValue(): number {
        if (fail) throw new Error('not yet');
        return 3;
      },
    };
    assert.deepEqual([budget.value(costly), budget.value(cheap)], [1, 2]);
    assert.throws(() => budget.value(flaky), /not yet/);
    fail = false;
    assert.equal(budget.value(flaky), 3);
    assert.deepEqual([budget.value(costly), budget.value(cheap)], [1, 2]);
    assert.deepEqual([costly.reads, cheap.reads], [1, 2]);
  });
});
