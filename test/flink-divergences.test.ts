// Flink behaviours Weir matches: keyed connect, onTimer on non-keyed streams, NaN timers, saturating cleanup times.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  TumblingEventTimeWindows,
  ValueStateDescriptor,
  type DataStream,
  type ValueState,
} from '../src/index.ts';
import { TestHarness } from '../src/testing/index.ts';

interface Order {
  id: string;
  amount: number;
}
interface Payment {
  orderId: string;
  paid: number;
}

describe('keyedA.connect(keyedB) is keyed, as in Flink', () => {
  it('a KeyedCoProcessFunction gets key-scoped state and timers shared by both inputs', async () => {
    const h = await TestHarness.createTwoInput((orders: DataStream<Order>, payments: DataStream<Payment>) =>
      orders
        .keyBy((o) => o.id)
        .connect(payments.keyBy((p) => p.orderId))
        .process<string>({
          open(ctx) {
            this.due = ctx.getState(new ValueStateDescriptor<number>('due'));
          },
          due: undefined as unknown as ValueState<number>,
          processElement1(order, ctx) {
            this.due.update(order.amount);
            ctx.timerService().registerEventTimeTimer(100);
          },
          processElement2(payment, ctx, out) {
            this.due.update((this.due.value() ?? 0) - payment.paid);
            out.collect(`${ctx.getCurrentKey()} owes ${this.due.value()}`);
          },
          onTimer(ts, ctx, out) {
            out.collect(`${ctx.getCurrentKey()}@${ts}: ${this.due.value()}`);
          },
        }),
    );
    h.processElement1({ id: 'a', amount: 10 }, 1);
    h.processElement1({ id: 'b', amount: 7 }, 2);
    h.processElement2({ orderId: 'a', paid: 4 }, 3);
    assert.equal(h.numEventTimeTimers(), 2, 'one timer per key (same time, different keys)');
    h.processWatermark1(100);
    h.processWatermark2(100);
    assert.deepEqual(h.records(), ['a owes 6', 'a@100: 6', 'b@100: 7']);
  });
});

describe('a ProcessFunction with onTimer on a stream that is not keyed', () => {
  it('is accepted, and registering a timer fails naming the operator', async () => {
    const h = await TestHarness.create((input: DataStream<number>) =>
      input.process<number>(
        {
          processElement(n, ctx, out) {
            if (n < 0) ctx.timerService().registerProcessingTimeTimer(10);
            out.collect(n * 2);
          },
          onTimer() {},
        },
        'Doubler',
      ),
    );
    h.processElement(3);
    assert.deepEqual(h.records(), [6]);
    assert.throws(
      () => h.processElement(-1),
      /Operator 'Doubler'.*Setting timers is only supported on a keyed stream/,
    );
  });
});

describe('registerEventTimeTimer(NaN)', () => {
  it('throws a clear error instead of a timer that never fires', async () => {
    const h = await TestHarness.create((input: DataStream<string>) =>
      input
        .keyBy((s) => s)
        .process<string>(
          {
            processElement(_s, ctx) {
              ctx.timerService().registerEventTimeTimer(ctx.timestamp()! + 60_000);
            },
          },
          'Reminder',
        ),
    );
    assert.throws(
      () => h.processElement('no timestamp'),
      /Operator 'Reminder'.*registerEventTimeTimer\(NaN\): a timer needs a time in milliseconds.*WatermarkStrategy/s,
    );
    assert.equal(h.numEventTimeTimers(), 0);
  });
});

describe('window cleanup times saturate at the end of time', () => {
  it('window end + allowed lateness past Number.MAX_SAFE_INTEGER registers no inexact cleanup timer', async () => {
    const start = 9_007_199_254_739_000; // a window [start, start + 1000) just below Number.MAX_SAFE_INTEGER
    const h = await TestHarness.create((input: DataStream<number>) =>
      input
        .keyBy(() => 'k')
        .window(TumblingEventTimeWindows.of(1_000))
        .allowedLateness(10_000)
        .reduce((a, b) => a + b),
    );
    h.processElement(1, start + 5);
    // Only the trigger's timer at start + 999: the cleanup time (start + 10_999) is past exact integers.
    assert.equal(h.numEventTimeTimers(), 1);
    h.processElement(2, start + 7);
    h.processWatermark(start + 999);
    assert.deepEqual(h.records(), [3]);
    h.processElement(4, start + 9); // within the allowed lateness: fires again with the late element
    assert.deepEqual(h.records(), [3, 7]);
  });
});
