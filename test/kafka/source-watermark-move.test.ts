// A cluster task that reads a Kafka topic, moved between owners by hand: its watermark and idleness move with it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WatermarkStrategy } from '../../src/index.ts';
import { ManualClock } from '../../src/core/clock.ts';
import type { TestRecord } from './kafka-test-cluster.ts';
import {
  EMIT_INTERVAL_MS as INTERVAL_MS,
  oneSourceTaskJob,
  repartitionEvents as readRepartition,
  taskOwner,
} from './task-by-hand.ts';
import { waitFor } from '../support/wait-for.ts';

const BOUND_MS = 1_000;
const IDLE_MS = 5_000;

const RECORDS: TestRecord[] = [
  { partition: 0, value: 'a', timestamp: 1_000 },
  { partition: 0, value: 'b', timestamp: 5_000 },
  { partition: 0, value: 'c', timestamp: 3_000 },
];

/** A job reading one partition with bounded out-of-orderness (and idleness), keyed into a second stage. */
function setUp(idleness: boolean) {
  const strategy = WatermarkStrategy.forBoundedOutOfOrderness<string>(BOUND_MS);
  return oneSourceTaskJob('source-wm', RECORDS, idleness ? strategy.withIdleness(IDLE_MS) : strategy);
}

/** One owner of task 0_0: its own manual clock (no periodic watermark unless the test moves it), no timed commit. */
const owner = (topology: Parameters<typeof taskOwner>[0], jobId: string, clock: ManualClock) =>
  taskOwner(topology, jobId, clock, Number.MAX_SAFE_INTEGER);

const until = (what: string, ready: () => boolean) => waitFor(what, ready, 60_000, 5);

describe('a cluster task reading a Kafka topic, moved to a new owner (Kafka)', { timeout: 180_000 }, () => {
  it('commits the watermark of what it read with its offsets; the new owner, with nothing left to read, keeps it', async () => {
    const { topology, jobId } = await setUp(false);
    const first = owner(topology, jobId, new ManualClock(0));
    await first.start();
    await until('the first owner read the 3 records', () => first.inputPosition === 3);
    // Moved before any periodic watermark (the clock never moved): the stop commits what was read.
    await first.stop(false);
    const second = owner(topology, jobId, new ManualClock(0));
    await second.start();
    await second.stop(false);
    // 5,000 - 1,000 - 1: without it, the watermark of the records the first owner read is lost for good.
    assert.deepEqual(await readRepartition(topology), ['a@1000', 'b@5000', 'c@3000', 'W3999']);
  });

  it('passes idleness on; an owner with nothing to read goes idle, and a new owner resumes idle', async () => {
    const { topology, jobId } = await setUp(true);
    const first = owner(topology, jobId, new ManualClock(0));
    await first.start();
    await until('the first owner read the 3 records', () => first.inputPosition === 3);
    await first.stop(false);
    // The second owner reads nothing: after the idle timeout it is idle.
    const clock = new ManualClock(0);
    const second = owner(topology, jobId, clock);
    await second.start();
    clock.advanceTo(IDLE_MS + INTERVAL_MS);
    await second.stop(false);
    assert.deepEqual(await readRepartition(topology), ['a@1000', 'b@5000', 'c@3000', 'W3999', 'idle']);
    // A third owner starts idle at 3999: its own periodic emits know nothing and do not make it active again.
    const third = owner(topology, jobId, clock);
    await third.start();
    clock.advanceTo(IDLE_MS + 3 * INTERVAL_MS);
    await third.stop(false);
    assert.deepEqual(await readRepartition(topology), [
      'a@1000',
      'b@5000',
      'c@3000',
      'W3999',
      'idle',
      // The third owner's producer announces itself (active at 3999), then restates where it resumed: idle.
      'active',
      'idle',
    ]);
  });
});
