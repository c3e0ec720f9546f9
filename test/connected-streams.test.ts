// Connected streams: CoProcessFunction and KeyedCoProcessFunction sharing key-bound state and timers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValueStateDescriptor, type DataStream, type ValueState } from '../src/index.ts';
import { TestHarness } from '../src/testing/index.ts';

interface Order {
  id: string;
  amount: number;
}
interface Payment {
  orderId: string;
  paid: number;
}

const matchOrders = (orders: DataStream<Order>, payments: DataStream<Payment>) =>
  orders
    .connect(payments)
    .keyBy(
      (o) => o.id,
      (p) => p.orderId,
    )
    .process({
      order: undefined as unknown as ValueState<Order>,
      payment: undefined as unknown as ValueState<Payment>,
      open(ctx) {
        this.order = ctx.getState(new ValueStateDescriptor<Order>('order'));
        this.payment = ctx.getState(new ValueStateDescriptor<Payment>('payment'));
      },
      processElement1(order, ctx, out) {
        const payment = this.payment.value();
        if (payment !== undefined) {
          out.collect(`${order.id} settled ${payment.paid}/${order.amount}`);
          this.payment.clear();
        } else {
          this.order.update(order);
          ctx.timerService().registerEventTimeTimer(ctx.timestamp()! + 100);
        }
      },
      processElement2(payment, _ctx, out) {
        const order = this.order.value();
        if (order !== undefined) {
          out.collect(`${order.id} settled ${payment.paid}/${order.amount}`);
          this.order.clear();
        } else this.payment.update(payment);
      },
      onTimer(ts, ctx, out) {
        if (this.order.value() !== undefined) out.collect(`${ctx.getCurrentKey()} unpaid at ${ts}`);
        this.order.clear();
      },
    });

describe('connected streams', () => {
  it('shares keyed state and timers between the two inputs of a key', async () => {
    for (const parallelism of [1, 3]) {
      const h = await TestHarness.createTwoInput(matchOrders, { parallelism });
      h.processElement1({ id: 'o1', amount: 10 }, 1);
      h.processElement2({ orderId: 'o2', paid: 7 }, 2);
      h.processElement1({ id: 'o3', amount: 30 }, 3);
      h.processElement2({ orderId: 'o1', paid: 10 }, 4);
      h.processElement1({ id: 'o2', amount: 7 }, 5);
      h.processWatermark1(200);
      h.processWatermark2(150);
      assert.deepEqual(h.records().sort(), ['o1 settled 10/10', 'o2 settled 7/7', 'o3 unpaid at 103']);
      assert.deepEqual(
        h.output().filter((e) => 'watermark' in e),
        [{ watermark: 150 }],
      );
      assert.equal(h.numKeyedStateEntries(), 0);
    }
  });

  it('maps both sides into one type with a CoMapFunction', async () => {
    const h = await TestHarness.createTwoInput((a: DataStream<number>, b: DataStream<string>) =>
      a.connect(b).map({ map1: (n) => `n${n}`, map2: (s) => `s${s}` }),
    );
    h.processElement1(1, 10);
    h.processElement2('x', 11);
    assert.deepEqual(h.output(), [
      { value: 'n1', timestamp: 10 },
      { value: 'sx', timestamp: 11 },
    ]);
  });
});
