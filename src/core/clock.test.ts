// Clocks: the manual clock's ordering, cancellation and bounds; the system clock's timing of callbacks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock, SystemClock } from './clock.ts';

describe('ManualClock', () => {
  it('runs due callbacks in time order, equal times in scheduling order, each with the time reached', () => {
    const clock = new ManualClock(5);
    assert.equal(clock.now(), 5);
    const log: string[] = [];
    clock.schedule(30, (t) => log.push(`c@${t}`));
    clock.schedule(10, (t) => log.push(`a@${t}`));
    clock.schedule(20, (t) => log.push(`b@${t}`));
    clock.schedule(10, (t) => log.push(`a2@${t}`));
    clock.schedule(40, (t) => log.push(`d@${t}`));
    assert.equal(clock.pendingCount(), 5);
    clock.advanceTo(25);
    assert.equal(clock.now(), 25);
    assert.deepEqual(log, ['a@25', 'a2@25', 'b@25']);
    assert.equal(clock.pendingCount(), 2);
    clock.advanceTo(40);
    assert.deepEqual(log.slice(3), ['c@40', 'd@40']);
    assert.equal(clock.pendingCount(), 0);
  });

  it('starts at 0 by default', () => {
    assert.equal(new ManualClock().now(), 0);
  });

  it('a cancelled callback never runs and is no longer counted', () => {
    const clock = new ManualClock();
    const log: number[] = [];
    const first = clock.schedule(10, () => log.push(1));
    clock.schedule(10, () => log.push(2));
    const third = clock.schedule(20, () => log.push(3));
    first.cancel();
    assert.equal(clock.pendingCount(), 2);
    third.cancel();
    clock.advanceTo(30);
    assert.deepEqual(log, [2]);
    assert.equal(clock.pendingCount(), 0);
  });

  it('runs a callback scheduled by a callback when it is due by the same advance', () => {
    const clock = new ManualClock();
    const log: string[] = [];
    clock.schedule(10, () => {
      log.push('first');
      clock.schedule(15, (t) => log.push(`second@${t}`));
      clock.schedule(50, () => log.push('too late'));
    });
    clock.advanceTo(20);
    assert.deepEqual(log, ['first', 'second@20']);
    assert.equal(clock.pendingCount(), 1);
  });

  it('may stay at the same time but never goes back', () => {
    const clock = new ManualClock(100);
    clock.advanceTo(100);
    assert.throws(
      () => clock.advanceTo(99),
      (e: Error) => e instanceof RangeError && e.message === 'The manual clock cannot go back from 100 to 99',
    );
    assert.equal(clock.now(), 100);
  });
});

describe('SystemClock', () => {
  const clock = new SystemClock();

  it('reads Date.now()', () => {
    const before = Date.now();
    const now = clock.now();
    assert.ok(now >= before && now <= Date.now(), `${now} outside [${before}, ${Date.now()}]`);
  });

  it('calls back no earlier than the time asked for, with a time at or after it', async () => {
    const at = Date.now() + 30;
    const [firedAt, given] = await new Promise<[number, number]>((done) =>
      clock.schedule(at, (t) => done([Date.now(), t])),
    );
    assert.ok(firedAt >= at, `fired at ${firedAt}, asked for ${at}`);
    assert.ok(given >= at && given <= firedAt, `given ${given}`);
  });

  it('calls back at once with the current time when the time has passed', async () => {
    const before = Date.now();
    const given = await new Promise<number>((done) => clock.schedule(before - 5_000, done));
    assert.ok(given >= before, `given ${given}, before ${before}`);
  });

  it('a cancelled callback does not run (a later one does)', async () => {
    const log: string[] = [];
    const cancelled = clock.schedule(Date.now() + 5, () => log.push('cancelled'));
    cancelled.cancel();
    await new Promise<void>((done) =>
      clock.schedule(Date.now() + 20, () => {
        log.push('kept');
        done();
      }),
    );
    assert.deepEqual(log, ['kept']);
  });
});
