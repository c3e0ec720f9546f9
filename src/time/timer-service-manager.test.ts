// Timer services of one subtask: firing order, processing-time scheduling, snapshots by key group and restore.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deserialize } from 'node:v8';
import { HeapKeyedStateBackend } from '../state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../state/key-group-range.ts';
import { keyGroupFor, normalizeKey } from '../state/key-hash.ts';
import { voidNamespaceSerializer, type NamespaceSerializer } from '../state/namespace.ts';
import { structuredCloneSerializer } from '../core/type-serializer.ts';
import { ManualClock } from '../core/clock.ts';
import type { InternalTimer } from './internal-timer-service.ts';
import { InternalTimerServiceImpl } from './internal-timer-service-impl.ts';
import { TimerServiceManager } from './timer-service-manager.ts';

const MAXP = 128;
const windows: NamespaceSerializer<string> = { key: (w) => w, serializer: structuredCloneSerializer };

/** A manager over a heap backend for `range`, recording what fires as `domain key@time/namespace`. */
function setup(range = new KeyGroupRange(0, MAXP - 1), clock = new ManualClock()) {
  const backend = new HeapKeyedStateBackend(MAXP, range, () => clock.now());
  const fired: string[] = [];
  const guarded: string[] = [];
  const manager = new TimerServiceManager(backend, clock, (fire) => {
    guarded.push(`guard@${clock.now()}`);
    fire();
  });
  const record = (domain: string) => (t: InternalTimer<string, string>) =>
    void fired.push(
      `${domain} ${String(t.key)}@${t.timestamp}/${t.namespace} (key ${backend.getCurrentKey()})`,
    );
  const service = () =>
    manager.getInternalTimerService<string, string>('timers', windows, {
      onEventTime: record('event'),
      onProcessingTime: record('processing'),
    });
  return { backend, clock, manager, service, fired, guarded };
}

describe('TimerServiceManager', () => {
  it('returns one service per name, fires event-time timers up to and including the watermark, in order', () => {
    const { backend, manager, service, fired } = setup();
    const s = service();
    assert.equal(service(), s, 'the same service for the same name');
    backend.setCurrentKey('a');
    s.registerEventTimeTimer('w1', 20);
    s.registerEventTimeTimer('w1', 10);
    backend.setCurrentKey('b');
    s.registerEventTimeTimer('w2', 10);
    s.registerEventTimeTimer('w2', 30);
    s.deleteEventTimeTimer('w2', 30);
    assert.equal(manager.numEventTimeTimers(), 3);
    assert.equal(s.currentWatermark(), Number.NEGATIVE_INFINITY);
    manager.advanceWatermark(19);
    assert.equal(s.currentWatermark(), 19);
    manager.advanceWatermark(20);
    assert.deepEqual(fired, ['event a@10/w1 (key a)', 'event b@10/w2 (key b)', 'event a@20/w1 (key a)']);
    assert.equal(manager.numEventTimeTimers(), 0);
  });

  it('schedules only the earliest processing-time timer, fires due timers through the guard, then the next', () => {
    const { backend, clock, manager, service, fired, guarded } = setup();
    const s = service();
    assert.equal(s.currentProcessingTime(), 0);
    backend.setCurrentKey('a');
    s.registerProcessingTimeTimer('w', 50);
    s.registerProcessingTimeTimer('w', 50); // already registered: nothing new scheduled
    s.registerProcessingTimeTimer('w', 70);
    assert.equal(clock.pendingCount(), 1, 'one callback, for 50');
    s.registerProcessingTimeTimer('w', 30);
    assert.equal(clock.pendingCount(), 1, 'the callback for 50 replaced by one for 30');
    assert.equal(manager.numProcessingTimeTimers(), 3);
    clock.advanceTo(29);
    assert.deepEqual(fired, []);
    clock.advanceTo(50);
    assert.deepEqual(fired, ['processing a@30/w (key a)', 'processing a@50/w (key a)']);
    assert.deepEqual(guarded, ['guard@50']);
    assert.equal(clock.pendingCount(), 1, 'the next head (70) is scheduled');
    s.deleteProcessingTimeTimer('w', 70);
    clock.advanceTo(100);
    assert.deepEqual(fired.length, 2);
    assert.equal(clock.pendingCount(), 0);
  });

  it('a timer earlier than the scheduled one fires at its own time; a later one does not move the callback', () => {
    const { backend, clock, service, fired } = setup();
    const s = service();
    backend.setCurrentKey('a');
    s.registerProcessingTimeTimer('w', 30);
    s.registerProcessingTimeTimer('w', 50);
    clock.advanceTo(30);
    assert.deepEqual(fired, ['processing a@30/w (key a)']);
  });

  it("restores one key's timers of one timestamp in registration order", () => {
    const { backend, manager, service } = setup();
    const s = service();
    backend.setCurrentKey('k');
    for (const window of ['w3', 'w1', 'w2']) s.registerEventTimeTimer(window, 10);
    const restored = setup();
    restored.manager.restore(manager.snapshot(MAXP));
    restored.service();
    restored.manager.advanceWatermark(10);
    assert.deepEqual(restored.fired, [
      'event k@10/w3 (key k)',
      'event k@10/w1 (key k)',
      'event k@10/w2 (key k)',
    ]);
  });

  it('a timer service used on its own fires processing-time timers without a guard', () => {
    const clock = new ManualClock();
    const backend = new HeapKeyedStateBackend(MAXP, new KeyGroupRange(0, MAXP - 1), () => clock.now());
    const fired: number[] = [];
    const s = new InternalTimerServiceImpl<string, 0>('alone', backend, clock, voidNamespaceSerializer, {
      onEventTime: () => {},
      onProcessingTime: (t) => void fired.push(t.timestamp),
    });
    backend.setCurrentKey('k');
    s.registerProcessingTimeTimer(0, 5);
    clock.advanceTo(5);
    assert.deepEqual(fired, [5]);
  });

  it('stop cancels the scheduled callback', () => {
    const { backend, clock, manager, service, fired } = setup();
    const s = service();
    backend.setCurrentKey('a');
    s.registerProcessingTimeTimer('w', 10);
    manager.stop();
    assert.equal(clock.pendingCount(), 0);
    clock.advanceTo(20);
    assert.deepEqual(fired, []);
    s.registerProcessingTimeTimer('w', 30);
    assert.equal(clock.pendingCount(), 1, 'after stop, a new earliest timer is scheduled again');
  });

  it('snapshots timers by key group, in ascending key-group order, and restores only the groups in range', () => {
    const { backend, manager, service } = setup();
    const s = service();
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
    for (const [i, key] of keys.entries()) {
      backend.setCurrentKey(key);
      s.registerEventTimeTimer(`w${i}`, 100 + i);
      s.registerProcessingTimeTimer(`p${i}`, 200 + i);
    }
    const snapshot = manager.snapshot(MAXP);
    const groups = snapshot.map((g) => g.keyGroup);
    assert.deepEqual(
      groups,
      [...new Set(keys.map((k) => keyGroupFor(normalizeKey(k), MAXP)))].sort((x, y) => x - y),
    );

    // Restored into the lower half of the key groups: only the timers of keys whose group is in range.
    const half = new KeyGroupRange(0, MAXP / 2 - 1);
    const inRange = keys.filter((k) => half.contains(keyGroupFor(normalizeKey(k), MAXP)));
    assert.ok(inRange.length > 0 && inRange.length < keys.length, `keys in range: ${inRange}`);
    const restored = setup(half, new ManualClock(150));
    restored.manager.restore(snapshot);
    // Not yet requested: the restored timers wait, and are counted.
    assert.equal(restored.manager.numEventTimeTimers(), inRange.length);
    assert.equal(restored.manager.numProcessingTimeTimers(), inRange.length);
    restored.service();
    assert.equal(
      restored.clock.pendingCount(),
      1,
      'the restored earliest processing-time timer is scheduled',
    );
    restored.manager.advanceWatermark(1_000);
    restored.clock.advanceTo(1_000);
    const expected = (domain: string, base: number, prefix: string) =>
      keys
        .map((k, i) => [k, i] as const)
        .filter(([k]) => inRange.includes(k))
        .map(([k, i]) => `${domain} ${k}@${base + i}/${prefix}${i} (key ${k})`);
    assert.deepEqual(restored.fired, [...expected('event', 100, 'w'), ...expected('processing', 200, 'p')]);
    assert.equal(restored.manager.numEventTimeTimers(), 0);
    assert.equal(restored.manager.numProcessingTimeTimers(), 0);
  });

  it('keeps restored timers of another service apart until that service is requested', () => {
    const { backend, manager, service } = setup();
    const s = service();
    backend.setCurrentKey('a');
    s.registerEventTimeTimer('w', 5);
    const other = manager.getInternalTimerService<string, 0>('other', voidNamespaceSerializer, {
      onEventTime: () => {},
      onProcessingTime: () => {},
    });
    other.registerEventTimeTimer(0, 7);
    other.registerEventTimeTimer(0, 8);
    other.registerProcessingTimeTimer(0, 9);
    const snapshot = manager.snapshot(MAXP);
    const restored = setup();
    restored.manager.restore(snapshot);
    const first = restored.service();
    assert.equal(first.numEventTimeTimers(), 1);
    assert.equal(restored.manager.numEventTimeTimers(), 3, "the other service's timers are still pending");
    assert.equal(restored.manager.numProcessingTimeTimers(), 1);
    restored.manager.advanceWatermark(10);
    assert.deepEqual(restored.fired, ['event a@5/w (key a)']);
  });

  it('stores each key group as one v8-serialized list of [service, domain, time, key, key form, namespace]', () => {
    const { backend, manager, service } = setup();
    backend.setCurrentKey('k');
    service().registerEventTimeTimer('w', 3);
    service().registerProcessingTimeTimer('p', 4);
    const [group, ...rest] = manager.snapshot(MAXP);
    assert.deepEqual(rest, []);
    assert.equal(group!.keyGroup, keyGroupFor(normalizeKey('k'), MAXP));
    const stored = deserialize(group!.bytes) as unknown[][];
    assert.deepEqual(
      stored.map(([name, domain, time, key, form, ns]) => [
        name,
        domain,
        time,
        key,
        form,
        structuredCloneSerializer.deserialize(ns as Uint8Array),
      ]),
      [
        ['timers', 0, 3, 'k', 'k', 'w'],
        ['timers', 1, 4, 'k', 'k', 'p'],
      ],
    );
  });

  it('restores timers into a service that exists already', () => {
    const { backend, manager, service } = setup();
    backend.setCurrentKey('k');
    service().registerEventTimeTimer('w', 3);
    const snapshot = manager.snapshot(MAXP);
    const restored = setup();
    restored.service();
    restored.manager.restore(snapshot);
    restored.manager.advanceWatermark(3);
    assert.deepEqual(restored.fired, ['event k@3/w (key k)']);
  });

  it('keeps timers known to be new as a list of keys: fired with their keys, snapshotted as any timer', () => {
    const { backend, manager, service, fired } = setup();
    const s = service();
    for (const key of ['b', 'a', 'c']) {
      backend.setCurrentKey(key);
      s.registerNewEventTimeTimer('w', 9);
    }
    assert.equal((s as InternalTimerServiceImpl<string, string>).eventTimers.numListed(), 3);
    assert.throws(() => s.registerNewEventTimeTimer('w', Number.NaN), /registerEventTimeTimer\(NaN\)/);
    const restored = setup();
    restored.service();
    restored.manager.restore(manager.snapshot(MAXP));
    for (const m of [manager, restored.manager]) m.advanceWatermark(9);
    const expected = ['event b@9/w (key b)', 'event a@9/w (key a)', 'event c@9/w (key c)'];
    assert.deepEqual(fired, expected);
    assert.deepEqual(restored.fired.slice().sort(), expected.slice().sort(), 'restored by key group');
  });
});
