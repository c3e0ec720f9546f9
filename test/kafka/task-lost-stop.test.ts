// A cluster task lost while its commit waits on a broker that does not answer: its stop does not wait for the commit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/core/clock.ts';
import { whileBrokerPaused } from './kafka-test-cluster.ts';
import { oneSourceTaskJob, repartitionEvents, taskOwner } from './task-by-hand.ts';
import { waitFor } from '../support/wait-for.ts';

const COMMIT_INTERVAL_MS = 1_000;

const until = (what: string, ready: () => boolean) => waitFor(what, ready, 60_000, 5);

describe('a cluster task lost during a commit (Kafka)', { timeout: 180_000 }, () => {
  it('stops without waiting for a commit the broker does not answer; its producer closes once the commit returned', async () => {
    const { topology, jobId } = await oneSourceTaskJob(
      'lost-stop',
      ['a', 'b', 'c'].map((value) => ({ partition: 0, value })),
    );
    const clock = new ManualClock(0);
    const background: Promise<void>[] = [];
    const lost = taskOwner(topology, jobId, clock, COMMIT_INTERVAL_MS, (closing) => background.push(closing));
    await lost.start();
    await until('the task read the 3 records', () => lost.inputPosition === 3);
    await whileBrokerPaused(async () => {
      // The commit interval passes: the task's next commit waits on the paused broker.
      clock.advanceTo(COMMIT_INTERVAL_MS);
      await until('the task waits on its commit', () => lost.waitingOnBrokers);
      // The group gave the task away (its process missed its session timeout): the stop does not wait for the
      // commit, which would hold up the group's rebalance for as long as the broker does not answer.
      await lost.stop(true);
      assert.equal(lost.waitingOnBrokers, true, 'stopped while its commit still waited');
      assert.equal(background.length, 1, "the producer's closing, left to the process");
    });
    await Promise.all(background);
    // The next owner fences the lost one and resumes at the last commit: each record downstream once.
    const next = taskOwner(topology, jobId, new ManualClock(0), COMMIT_INTERVAL_MS);
    await next.start();
    await until('the next owner read to the end', () => next.inputPosition === 3);
    await next.stop(false);
    const records = (await repartitionEvents(topology)).filter((event) => event.includes('@'));
    assert.deepEqual(records.map((event) => event.split('@')[0]).sort(), ['a', 'b', 'c']);
  });
});
