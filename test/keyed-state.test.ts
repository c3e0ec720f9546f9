// Keyed state through the real runtime: every state kind bound to the current key, TTL, and misuse errors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AggregatingStateDescriptor,
  IllegalStateError,
  JobExecutionError,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  StateTtlConfig,
  StreamExecutionEnvironment,
  ValueStateDescriptor,
  type AggregatingState,
  type DataStream,
  type KeyedProcessFunction,
  type ListState,
  type MapState,
  type ReducingState,
  type ValueState,
} from '../src/index.ts';
import { TestHarness } from '../src/testing/index.ts';

interface Reading {
  sensor: string;
  value: number;
}

/** Keeps every kind of state per sensor and emits a summary per record. */
class AllStates implements KeyedProcessFunction<string, Reading, string> {
  last!: ValueState<number>;
  history!: ListState<number>;
  histogram!: MapState<number, number>;
  max!: ReducingState<number>;
  mean!: AggregatingState<number, number>;

  open(ctx: import('../src/index.ts').RuntimeContext): void {
    this.last = ctx.getState(new ValueStateDescriptor<number>('last'));
    this.history = ctx.getListState(new ListStateDescriptor<number>('history'));
    this.histogram = ctx.getMapState(new MapStateDescriptor<number, number>('histogram'));
    this.max = ctx.getReducingState(new ReducingStateDescriptor<number>('max', Math.max));
    this.mean = ctx.getAggregatingState(
      new AggregatingStateDescriptor('mean', {
        createAccumulator: () => ({ sum: 0, n: 0 }),
        add: (v: number, acc: { sum: number; n: number }) => ({ sum: acc.sum + v, n: acc.n + 1 }),
        getResult: (acc: { sum: number; n: number }) => acc.sum / acc.n,
        merge: (a: { sum: number; n: number }, b: { sum: number; n: number }) => ({
          sum: a.sum + b.sum,
          n: a.n + b.n,
        }),
      }),
    );
  }

  processElement(
    r: Reading,
    ctx: import('../src/index.ts').KeyedProcessContext<string>,
    out: import('../src/index.ts').Collector<string>,
  ): void {
    const previous = this.last.value();
    this.last.update(r.value);
    this.history.add(r.value);
    this.histogram.put(r.value, (this.histogram.get(r.value) ?? 0) + 1);
    this.max.add(r.value);
    this.mean.add(r.value);
    out.collect(
      `${ctx.getCurrentKey()} prev=${previous} hist=[${this.history.get().join(',')}] counts=${JSON.stringify([...this.histogram.entries()])} max=${this.max.get()} mean=${this.mean.get()}`,
    );
  }
}

describe('keyed state', () => {
  it('binds value, list, map, reducing and aggregating state to the current key', async () => {
    for (const parallelism of [1, 2]) {
      const h = await TestHarness.create(
        (input: DataStream<Reading>) => input.keyBy((r) => r.sensor).process(new AllStates()),
        { parallelism },
      );
      h.processElement({ sensor: 'a', value: 1 });
      h.processElement({ sensor: 'b', value: 10 });
      h.processElement({ sensor: 'a', value: 3 });
      h.processElement({ sensor: 'a', value: 1 });
      h.processElement({ sensor: 'b', value: 5 });
      assert.deepEqual(h.records(), [
        'a prev=undefined hist=[1] counts=[[1,1]] max=1 mean=1',
        'b prev=undefined hist=[10] counts=[[10,1]] max=10 mean=10',
        'a prev=1 hist=[1,3] counts=[[1,1],[3,1]] max=3 mean=2',
        'a prev=3 hist=[1,3,1] counts=[[1,2],[3,1]] max=3 mean=1.6666666666666667',
        'b prev=10 hist=[10,5] counts=[[10,1],[5,1]] max=10 mean=7.5',
      ]);
      assert.equal(h.numKeyedStateEntries(), 10, 'five states x two keys');
    }
  });

  it('supports composite keys: equal objects are one key whatever their property order', async () => {
    const h = await TestHarness.create((input: DataStream<{ k: { a: number; b: string }; v: number }>) =>
      input.keyBy((e) => e.k).reduce((x, y) => ({ k: x.k, v: x.v + y.v })),
    );
    h.processElement({ k: { a: 1, b: 'x' }, v: 1 });
    h.processElement({ k: { b: 'x', a: 1 }, v: 2 });
    h.processElement({ k: { a: 2, b: 'x' }, v: 5 });
    assert.deepEqual(
      h.records().map((r) => r.v),
      [1, 3, 5],
    );
  });

  it('never returns an expired entry (TTL in processing time)', async () => {
    const ttl = StateTtlConfig.newBuilder(1_000).build();
    const h = await TestHarness.create((input: DataStream<string>) =>
      input
        .keyBy((s) => s)
        .process({
          seen: undefined as unknown as ValueState<number>,
          open(ctx) {
            this.seen = ctx.getState(new ValueStateDescriptor<number>('seen', { ttl }));
          },
          processElement(s, ctx, out) {
            const before = this.seen.value();
            this.seen.update((before ?? 0) + 1);
            out.collect(`${s}:${before ?? 'none'}@${ctx.timerService().currentProcessingTime()}`);
          },
        }),
    );
    h.setProcessingTime(0);
    h.processElement('k');
    h.setProcessingTime(999);
    h.processElement('k');
    h.setProcessingTime(1_998);
    h.processElement('k');
    h.setProcessingTime(3_000);
    h.processElement('k');
    assert.deepEqual(h.records(), ['k:none@0', 'k:1@999', 'k:2@1998', 'k:none@3000']);
  });

  it('rejects keyed state on a stream that is not keyed, naming the operator', async () => {
    const env = StreamExecutionEnvironment.create();
    env
      .fromElements(1, 2)
      .process(
        {
          open(ctx) {
            ctx.getState(new ValueStateDescriptor<number>('count'));
          },
          processElement() {},
        },
        'Unkeyed counter',
      )
      .print();
    await assert.rejects(env.execute(), (error: unknown) => {
      assert.ok(error instanceof JobExecutionError);
      assert.ok(error.cause instanceof IllegalStateError);
      assert.match(
        error.message,
        /Operator 'Unkeyed counter'.*open\(\).*Keyed state 'count' can only be used on a keyed stream/,
      );
      return true;
    });
  });

  it('rejects one state name used with two kinds', async () => {
    const h = TestHarness.create((input: DataStream<number>) =>
      input
        .keyBy((n) => n)
        .process({
          open(ctx) {
            ctx.getState(new ValueStateDescriptor<number>('s'));
            ctx.getListState(new ListStateDescriptor<number>('s'));
          },
          processElement() {},
        }),
    );
    await assert.rejects(h, /state 's' was registered as value state and is now asked for as list state/);
  });
});

describe('map state TTL', () => {
  it('expires each entry on its own: an entry added later outlives an older one', async () => {
    const ttl = StateTtlConfig.newBuilder(1_000).build();
    const h = await TestHarness.create((input: DataStream<[string, string]>) =>
      input
        .keyBy(() => 'k')
        .process<string>({
          map: undefined as unknown as MapState<string, number>,
          open(ctx) {
            this.map = ctx.getMapState(new MapStateDescriptor<string, number>('m', { ttl }));
          },
          processElement([op, entry], ctx, out) {
            if (op === 'put') this.map.put(entry, ctx.timerService().currentProcessingTime());
            else out.collect(JSON.stringify([...this.map.entries()]));
          },
        }),
    );
    h.setProcessingTime(0);
    h.processElement(['put', 'a']);
    h.setProcessingTime(800);
    h.processElement(['put', 'b']);
    h.setProcessingTime(1_200);
    h.processElement(['get', '']);
    h.setProcessingTime(1_900);
    h.processElement(['get', '']);
    assert.deepEqual(h.records(), ['[["b",800]]', '[]']);
  });
});
