// Generated input for the user-activity example, and a per-event watermark strategy so runs are deterministic.
import { WatermarkStrategy } from '../../src/time/watermark-strategy.ts';
import type { Activity } from './user-activity.ts';

/**
 * Three minutes of activity: "alice" acts every 100 ms (600 events a minute, so early results), "bob" every 6 s.
 * Two of bob's purchases arrive out of order: one within the allowed lateness of its minute, one far too late.
 */
export function generateActivity(): Activity[] {
  const events: Activity[] = [];
  const kinds: Activity['kind'][] = ['view', 'view', 'click', 'view', 'buy'];
  for (let i = 0; i < 1800; i++) events.push({ user: 'alice', kind: kinds[i % kinds.length]!, ts: i * 100 });
  for (let i = 0; i < 30; i++)
    events.push({ user: 'bob', kind: kinds[(i * 3) % kinds.length]!, ts: i * 6000 + 17 });
  events.sort((a, b) => a.ts - b.ts);
  // Arrives when the watermark is ~65 s: minute 0 has fired but is kept 10 s longer, so it fires again.
  events.splice(
    events.findIndex((e) => e.ts >= 70_000),
    0,
    { user: 'bob', kind: 'buy', ts: 57_000 },
  );
  // Arrives at the very end: minute 0 is long gone, so it goes to the late side output.
  events.push({ user: 'bob', kind: 'buy', ts: 30_000 });
  return events;
}

/**
 * Bounded out-of-orderness (5 s), with a watermark after every event rather than periodically, so which events
 * are late does not depend on how fast the job runs.
 */
export function activityWatermarks(): WatermarkStrategy<Activity> {
  return WatermarkStrategy.forGenerator<Activity>(() => {
    let maxTimestamp = Number.NEGATIVE_INFINITY;
    return {
      onEvent(_event, timestamp, output) {
        maxTimestamp = Math.max(maxTimestamp, timestamp);
        output.emitWatermark(maxTimestamp - 5_000 - 1);
      },
      onPeriodicEmit() {},
    };
  }).withTimestampAssigner((a) => a.ts);
}
