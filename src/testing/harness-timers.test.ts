// Harness timer introspection as Flink's operator tests use it: counts per namespace, and pending timers listed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../api/data-stream.ts';
import { TestHarness, type HarnessTimer } from './index.ts';
import { TumblingEventTimeWindows } from '../windowing/assigners/tumbling-event-time-windows.ts';
import { TimeWindow } from '../windowing/time-window.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from '../operators/stream-operator.ts';
import type { InternalTimerService } from '../time/internal-timer-service.ts';
import { voidNamespaceSerializer, type VoidNamespace } from '../state/namespace.ts';
import { keyGroupFor, normalizeKey } from '../state/key-hash.ts';
import { subtaskForKeyGroup } from '../state/key-group-range.ts';

/** Registers an event-time timer at value + 10 and a processing-time timer at value + 100 per record. */
const timersPerRecord = (input: DataStream<[string, number]>) =>
  input
    .keyBy(([user]) => user)
    .process<string>({
      processElement([, at], ctx) {
        ctx.timerService().registerEventTimeTimer(at + 10);
        ctx.timerService().registerProcessingTimeTimer(at + 100);
      },
      onTimer(timestamp, ctx, out) {
        out.collect(`${ctx.getCurrentKey()}@${timestamp}`);
      },
    })
    .uid('timers');

const kg = (key: string) => keyGroupFor(normalizeKey(key), 128);

describe('TestHarness timer introspection', () => {
  it('counts and lists a keyed process function’s timers by key, key group and subtask', async () => {
    const h = await TestHarness.create(timersPerRecord, { parallelism: 2 });
    h.processElement(['alice', 5], 5);
    h.processElement(['bob', 1], 1);
    h.processElement(['alice', 20], 20);
    h.processElement(['alice', 5], 21); // the same timer again: no new one
    assert.equal(h.numEventTimeTimers(), 3);
    assert.equal(h.numProcessingTimeTimers(), 3);
    assert.equal(h.numEventTimeTimers(0), 3, 'a process function’s timers are in VoidNamespace (0)');
    const subtaskOf = (key: string) => subtaskForKeyGroup(kg(key), 128, 2);
    assert.deepEqual(h.eventTimeTimers({ key: 'alice' }), [
      {
        operator: 'KeyedProcess',
        subtask: subtaskOf('alice'),
        service: 'user-timers',
        timestamp: 15,
        key: 'alice',
        keyGroup: kg('alice'),
        namespace: 0,
      },
      {
        operator: 'KeyedProcess',
        subtask: subtaskOf('alice'),
        service: 'user-timers',
        timestamp: 30,
        key: 'alice',
        keyGroup: kg('alice'),
        namespace: 0,
      },
    ] satisfies HarnessTimer[]);
    assert.deepEqual(
      h.processingTimeTimers({ keyGroup: kg('bob') }).map((t) => [t.key, t.timestamp]),
      [['bob', 101]],
    );
    assert.deepEqual(h.eventTimeTimers({ operator: 'Nothing here' }), []);

    h.processWatermark(15);
    assert.deepEqual(h.records(), ['bob@11', 'alice@15']);
    assert.deepEqual(
      h.eventTimeTimers().map((t) => [t.key, t.timestamp]),
      [['alice', 30]],
    );
    h.setProcessingTime(105);
    assert.deepEqual(
      h.processingTimeTimers().map((t) => [t.key, t.timestamp]),
      [['alice', 120]],
    );

    const restored = await TestHarness.restore(timersPerRecord, h.snapshot(), { parallelism: 3 });
    assert.deepEqual(
      restored.eventTimeTimers().map((t) => [t.key, t.timestamp, t.subtask]),
      [['alice', 30, subtaskForKeyGroup(kg('alice'), 128, 3)]],
    );
    assert.equal(restored.numProcessingTimeTimers(), 1);
    await h.close();
    await restored.close();
  });

  it('counts window timers per window, as Flink’s numEventTimeTimers(namespace)', async () => {
    const h = await TestHarness.create((input: DataStream<[string, number]>) =>
      input
        .keyBy(([k]) => k)
        .window(TumblingEventTimeWindows.of(10))
        .reduce((a, b) => [a[0], a[1] + b[1]]),
    );
    h.processElement(['a', 1], 3);
    h.processElement(['b', 1], 4);
    h.processElement(['a', 1], 12);
    assert.equal(h.numEventTimeTimers(), 3);
    assert.equal(h.numEventTimeTimers(new TimeWindow(0, 10)), 2);
    assert.equal(h.numEventTimeTimers(new TimeWindow(10, 20)), 1);
    assert.equal(h.numEventTimeTimers(new TimeWindow(20, 30)), 0);
    assert.deepEqual(
      h.eventTimeTimers({ namespace: new TimeWindow(0, 10) }).map((t) => [t.service, t.key, t.timestamp]),
      [
        ['window-timers', 'a', 9],
        ['window-timers', 'b', 9],
      ],
    );
    h.processWatermark(9);
    assert.equal(h.numEventTimeTimers(new TimeWindow(0, 10)), 0);
    assert.equal(h.numEventTimeTimers(), 1);
    await h.close();
  });

  it('sees a custom operator’s own internal timer service, by name', async () => {
    /** Emits each record again when processing time reaches its value, from a service named 'echo'. */
    class Echo extends AbstractStreamOperator<number> implements OneInputStreamOperator<number, number> {
      private timers!: InternalTimerService<VoidNamespace>;
      override open(): void {
        this.timers = this.context.getInternalTimerService<number, VoidNamespace>(
          'echo',
          voidNamespaceSerializer,
          {
            onEventTime: () => {},
            onProcessingTime: (timer) => this.output.collect(timer.key, NaN),
          },
        );
      }
      processElement(value: number): void {
        this.timers.registerProcessingTimeTimer(0, value);
      }
    }
    const h = await TestHarness.create((input: DataStream<number>) =>
      input.keyBy((n) => n).transform<number>('Echo', () => new Echo()),
    );
    h.processElement(50);
    h.processElement(20);
    assert.deepEqual(
      h.processingTimeTimers({ service: 'echo' }).map((t) => [t.operator, t.key, t.timestamp]),
      [
        ['Echo', 20, 20],
        ['Echo', 50, 50],
      ],
    );
    assert.equal(h.numProcessingTimeTimers(0), 2);
    h.setProcessingTime(30);
    assert.deepEqual(h.records(), [20]);
    assert.equal(h.numProcessingTimeTimers(), 1);
    await h.close();
  });
});
