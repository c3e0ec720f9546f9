// Tests the user-activity example: early firings every N events, final results, lateness and the late side output.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../../src/api/data-stream.ts';
import { CollectSink, StreamExecutionEnvironment } from '../../src/index.ts';
import { TestHarness } from '../../src/testing/index.ts';
import { activityWatermarks, generateActivity } from './generate-activity.ts';
import { lateActivity, userActivity, type Activity, type ActivitySummary } from './user-activity.ts';

const a = (user: string, ts: number, kind: Activity['kind'] = 'view'): Activity => ({ user, kind, ts });

describe('user activity example', () => {
  it('fires early every N events, finally at the end of the minute, and again for late events', async () => {
    const h = await TestHarness.create(
      (input: DataStream<Activity>) => userActivity(input, { earlyEvery: 3 }).summaries,
      { parallelism: 2 },
    );
    const feed = (x: Activity) => h.processElement(x, x.ts);
    for (let i = 0; i < 7; i++) feed(a('alice', i * 1000, i === 4 ? 'buy' : 'view'));
    feed(a('bob', 5000));
    assert.deepEqual(h.records(), [
      { user: 'alice', windowStart: 0, events: 3, buys: 0, early: true },
      { user: 'alice', windowStart: 0, events: 6, buys: 1, early: true },
    ]);
    h.processWatermark(60_000);
    assert.deepEqual(
      h
        .records()
        .slice(2)
        .sort((x, y) => x.user.localeCompare(y.user)),
      [
        { user: 'alice', windowStart: 0, events: 7, buys: 1, early: false },
        { user: 'bob', windowStart: 0, events: 1, buys: 0, early: false },
      ],
    );
    // Within the 10 s allowed lateness: the minute fires again at once with the new count.
    feed(a('bob', 59_000, 'buy'));
    assert.deepEqual(h.records().at(-1), { user: 'bob', windowStart: 0, events: 2, buys: 1, early: false });
    // Past it: the late side output, and every trace of the minute is gone.
    h.processWatermark(70_000);
    feed(a('bob', 59_500));
    assert.deepEqual(
      h.sideOutput(lateActivity).map((r) => r.value),
      [a('bob', 59_500)],
    );
    assert.equal(h.numKeyedStateEntries(), 0);
    assert.equal(h.numEventTimeTimers(), 0);
    await h.close();
  });

  it('survives a snapshot and restore at another parallelism with its early counts', async () => {
    const build = (input: DataStream<Activity>) => userActivity(input, { earlyEvery: 4 }).summaries;
    const h1 = await TestHarness.create(build, { parallelism: 1 });
    for (let i = 0; i < 3; i++) h1.processElement(a('carol', i), i);
    const snapshot = h1.snapshot();
    await h1.close();
    const h2 = await TestHarness.restore(build, snapshot, { parallelism: 3 });
    h2.processElement(a('carol', 10), 10);
    assert.deepEqual(h2.records(), [{ user: 'carol', windowStart: 0, events: 4, buys: 0, early: true }]);
    await h2.close();
  });

  it('runs end to end as main.ts does', async () => {
    const env = StreamExecutionEnvironment.create();
    const source = env
      .fromElements(...generateActivity())
      .assignTimestampsAndWatermarks(activityWatermarks());
    const { summaries, late } = userActivity(source);
    const [s, l] = [new CollectSink<ActivitySummary>(), new CollectSink<Activity>()];
    summaries.sinkTo(s);
    late.sinkTo(l);
    await env.execute('user activity');
    const alice = s.values.filter((v) => v.user === 'alice');
    // 600 events per minute: one early result at 500, one final per minute.
    assert.deepEqual(
      alice.map((v) => [v.windowStart, v.events, v.early]),
      [
        [0, 500, true],
        [0, 600, false],
        [60_000, 500, true],
        [60_000, 600, false],
        [120_000, 500, true],
        [120_000, 600, false],
      ],
    );
    const bob = s.values.filter((v) => v.user === 'bob');
    // Minute 0 fires at its end, then once more for the purchase that came 8 s late (within the 10 s lateness).
    assert.deepEqual(
      bob.map((v) => [v.windowStart, v.events, v.buys]),
      [
        [0, 10, 2],
        [0, 11, 3],
        [60_000, 10, 2],
        [120_000, 10, 2],
      ],
    );
    assert.deepEqual(l.values, [a('bob', 30_000, 'buy')]);
  });
});
