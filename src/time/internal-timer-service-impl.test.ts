// The timer service handing a window end's listed timers to a triggerable in one call, against one timer a call.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../core/clock.ts';
import { structuredCloneSerializer } from '../core/type-serializer.ts';
import { HeapKeyedStateBackend } from '../state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../state/key-group-range.ts';
import type { NamespaceSerializer } from '../state/namespace.ts';
import type { InternalTimer, KeyListTimers, Triggerable } from './internal-timer-service.ts';
import { InternalTimerServiceImpl } from './internal-timer-service-impl.ts';

const windows: NamespaceSerializer<string> = { key: (w) => w, serializer: structuredCloneSerializer };

/**
 * A service whose triggerable records `how key@time/namespace (current key)` for every timer it fires and calls
 * `during` after each; with `byList`, it takes key lists in one call (`list`), polling at most `limit` keys a call.
 */
function setup(byList: boolean, during: (fired: string) => void = () => {}, limit = Infinity) {
  const clock = new ManualClock();
  const backend = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => clock.now());
  const fired: string[] = [];
  const fire = (how: string, key: unknown, time: number, namespace: string): void => {
    const entry = `${how} ${String(key)}@${time}/${namespace} (${String(backend.getCurrentKey())})`;
    fired.push(entry);
    during(entry);
  };
  const triggerable: Triggerable<string, string> = {
    onEventTime: (t: InternalTimer<string, string>) => fire('one', t.key, t.timestamp, t.namespace),
    onProcessingTime: () => assert.fail('no processing-time timers here'),
  };
  if (byList) {
    triggerable.onEventTimeKeyList = (time: number, namespace: string, timers: KeyListTimers<string>) => {
      fired.push(`list ${time}/${namespace}`);
      let key: string | undefined;
      for (let n = 0; n < limit && (key = timers.pollKey()) !== undefined; n++)
        fire('listed', key, time, namespace);
    };
  }
  const service = new InternalTimerServiceImpl<string, string>(
    'timers',
    backend,
    clock,
    windows,
    triggerable,
  );
  const register = (key: string, namespace: string, time: number, asNew = true): void => {
    backend.setCurrentKey(key);
    if (asNew) service.registerNewEventTimeTimer(namespace, time);
    else service.registerEventTimeTimer(namespace, time);
  };
  return { service, register, fired };
}

/** The fired timers without how they came: what one timer a call fires. */
const timersOf = (fired: readonly string[]): string[] =>
  fired.filter((f) => !f.startsWith('list ')).map((f) => f.slice(f.indexOf(' ') + 1));

describe('InternalTimerServiceImpl', () => {
  it("hands a window end's listed timers to a triggerable that takes them in one call, each key set, in order", () => {
    const run = (byList: boolean) => {
      const s = setup(byList);
      for (const key of ['a', 'b', 'c']) s.register(key, 'w1', 10);
      s.register('a', 'w2', 20);
      s.register('b', 'w2', 20);
      s.register('c', 'w1', 20, false); // another namespace at 20: the bucket is no key list any more
      s.service.advanceWatermark(25);
      assert.equal(s.service.numEventTimeTimers(), 0);
      return s.fired;
    };
    const listed = run(true);
    assert.deepEqual(listed, [
      'list 10/w1',
      'listed a@10/w1 (a)',
      'listed b@10/w1 (b)',
      'listed c@10/w1 (c)',
      'one a@20/w2 (a)',
      'one b@20/w2 (b)',
      'one c@20/w1 (c)',
    ]);
    assert.deepEqual(timersOf(listed), timersOf(run(false)));
  });

  it('fires what the calls register or delete as one timer a call would, and the rest of a list stopped early', () => {
    // While a@10 fires: d joins the list at 10 (next after c), e comes at 5 (before the rest of the list, which
    // the watermark has passed too), c's timer is deleted. A triggerable taking one key a call leaves the rest.
    const scenario = (byList: boolean, limit?: number) => {
      const s = setup(
        byList,
        (entry) => {
          if (!entry.includes(' a@10/')) return;
          s.register('d', 'w', 10);
          s.register('e', 'w', 5);
          s.register('c', 'w', 10, false); // queued already: no second timer
          s.service.deleteEventTimeTimer('w', 10);
        },
        limit,
      );
      for (const key of ['a', 'b', 'c']) s.register(key, 'w', 10);
      s.service.advanceWatermark(10);
      return s.fired;
    };
    const expected = timersOf(scenario(false));
    assert.deepEqual(expected, ['a@10/w (a)', 'e@5/w (e)', 'b@10/w (b)', 'd@10/w (d)']);
    assert.deepEqual(scenario(true), [
      'list 10/w',
      'listed a@10/w (a)',
      'list 5/w',
      'listed e@5/w (e)',
      'list 10/w',
      'listed b@10/w (b)',
      'listed d@10/w (d)',
    ]);
    assert.deepEqual(timersOf(scenario(true, 1)), expected);
  });

  it('fires a timer the usual way when the triggerable polls none of its list', () => {
    const s = setup(true, undefined, 0);
    s.register('a', 'w', 10);
    s.register('b', 'w', 10);
    s.service.advanceWatermark(10);
    assert.deepEqual(s.fired, ['list 10/w', 'one a@10/w (a)', 'list 10/w', 'one b@10/w (b)']);
  });
});
