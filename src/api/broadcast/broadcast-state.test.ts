// Ported from Flink's CoBroadcastWithKeyedOperatorTest / CoBroadcastWithNonKeyedOperatorTest, plus the API checks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../data-stream.ts';
import { ConfigurationError, JobExecutionError } from '../../core/errors.ts';
import { OutputTag } from '../../core/output-tag.ts';
import { StreamExecutionEnvironment } from '../stream-execution-environment.ts';
import { TestHarness } from '../../testing/index.ts';
import { normalizeKey, keyGroupFor } from '../../state/key-hash.ts';
import { subtaskForKeyGroup } from '../../state/key-group-range.ts';
import type { ListState, ValueState } from '../../core/state.ts';
import {
  ListStateDescriptor,
  MapStateDescriptor,
  ValueStateDescriptor,
} from '../../core/state-descriptor.ts';
import type {
  BroadcastProcessFunction,
  KeyedBroadcastProcessFunction,
} from '../../core/broadcast-process-function.ts';

const STATE_DESCRIPTOR = new MapStateDescriptor<string, number>('broadcast-state');

/** `keyed.connect(broadcast.broadcast(STATE_DESCRIPTOR)).process(fn)` with identity keys, as Flink's harness. */
function keyedBroadcast<IN1, IN2, OUT>(
  fn: KeyedBroadcastProcessFunction<any, IN1, IN2, OUT>,
  key = (v: IN1) => v as unknown,
) {
  return (a: DataStream<IN1>, b: DataStream<IN2>) =>
    a
      .keyBy(key)
      .connect(b.broadcast(STATE_DESCRIPTOR))
      .process<OUT>(fn as KeyedBroadcastProcessFunction<unknown, IN1, IN2, OUT>);
}

describe('CoBroadcastWithKeyedOperatorTest (Flink)', () => {
  it('testKeyQuerying', async () => {
    const h = await TestHarness.createTwoInput(
      keyedBroadcast<[number, string], string, string>(
        {
          processElement(value, ctx, out) {
            assert.equal(ctx.getCurrentKey(), value[0]);
            out.collect(value[1]);
          },
          processBroadcastElement() {},
        },
        (v) => v[0],
      ),
    );
    h.processElement1([5, '5'], 12);
    h.processElement1([42, '42'], 13);
    assert.deepEqual(h.output(), [
      { value: '5', timestamp: 12 },
      { value: '42', timestamp: 13 },
    ]);
    await h.close();
  });

  it('testAccessToKeyedStateIt: applyToKeyedState sees every key’s state', async () => {
    const listStateDesc = new ListStateDescriptor<string>('listStateTest');
    const seen = new Map<string, string[]>();
    const h = await TestHarness.createTwoInput(
      keyedBroadcast<string, number, string>({
        list: undefined as unknown as ListState<string>,
        processBroadcastElement(_value, ctx) {
          ctx.applyToKeyedState(listStateDesc, (key: string, state: ListState<string>) => {
            seen.set(key, [...state.get()]);
          });
        },
        processElement(value) {
          this.list.add(value);
        },
        open(ctx) {
          this.list = ctx.getListState(listStateDesc);
        },
      } as KeyedBroadcastProcessFunction<string, string, number, string> & { list: ListState<string> }),
    );
    for (const [v, ts] of [
      ['test1', 12],
      ['test1', 12],
      ['test2', 13],
      ['test2', 13],
      ['test2', 13],
      ['test3', 14],
      ['test3', 14],
      ['test3', 14],
      ['test2', 13],
    ] as const) {
      h.processElement1(v, ts);
    }
    h.processElement2(1, 13);
    assert.deepEqual(
      new Map([...seen].sort()),
      new Map([
        ['test1', ['test1', 'test1']],
        ['test2', ['test2', 'test2', 'test2', 'test2']],
        ['test3', ['test3', 'test3', 'test3']],
      ]),
    );
    await h.close();
  });

  const withTimer = (
    timerTs: number,
    expectedKey: string,
  ): KeyedBroadcastProcessFunction<string, string, number, string> => ({
    processBroadcastElement(value, ctx, out) {
      out.collect(`BR:${value} WM:${ctx.currentWatermark()} TS:${ctx.timestamp()}`);
    },
    processElement(value, ctx, out) {
      ctx.timerService().registerEventTimeTimer(timerTs);
      out.collect(`NON-BR:${value} WM:${ctx.currentWatermark()} TS:${ctx.timestamp()}`);
    },
    onTimer(timestamp, ctx, out) {
      assert.equal(ctx.getCurrentKey(), expectedKey);
      out.collect(`TIMER:${timestamp}`);
    },
  });

  it('testFunctionWithTimer', async () => {
    const h = await TestHarness.createTwoInput(keyedBroadcast(withTimer(41, '6')));
    h.processWatermark1(10);
    h.processWatermark2(10);
    h.processElement2(5, 12);
    h.processWatermark1(40);
    h.processWatermark2(40);
    h.processElement1('6', 13);
    h.processElement1('6', 15);
    h.processWatermark1(50);
    h.processWatermark2(50);
    assert.deepEqual(h.output(), [
      { watermark: 10 },
      { value: 'BR:5 WM:10 TS:12', timestamp: 12 },
      { watermark: 40 },
      { value: 'NON-BR:6 WM:40 TS:13', timestamp: 13 },
      { value: 'NON-BR:6 WM:40 TS:15', timestamp: 15 },
      { value: 'TIMER:41', timestamp: 41 },
      { watermark: 50 },
    ]);
    await h.close();
  });

  it('testSideOutput', async () => {
    const BROADCAST_TAG = new OutputTag<string>('br-out');
    const NON_BROADCAST_TAG = new OutputTag<string>('non-br-out');
    const h = await TestHarness.createTwoInput(
      keyedBroadcast<string, number, string>({
        processBroadcastElement(value, ctx) {
          ctx.output(BROADCAST_TAG, `BR:${value} WM:${ctx.currentWatermark()} TS:${ctx.timestamp()}`);
        },
        processElement(value, ctx) {
          ctx.output(NON_BROADCAST_TAG, `NON-BR:${value} WM:${ctx.currentWatermark()} TS:${ctx.timestamp()}`);
        },
      }),
    );
    h.processWatermark1(10);
    h.processWatermark2(10);
    h.processElement2(5, 12);
    h.processWatermark1(40);
    h.processWatermark2(40);
    h.processElement1('6', 13);
    h.processElement1('6', 15);
    h.processWatermark1(50);
    h.processWatermark2(50);
    assert.deepEqual(h.sideOutput(BROADCAST_TAG), [{ value: 'BR:5 WM:10 TS:12', timestamp: 12 }]);
    assert.deepEqual(h.sideOutput(NON_BROADCAST_TAG), [
      { value: 'NON-BR:6 WM:40 TS:13', timestamp: 13 },
      { value: 'NON-BR:6 WM:40 TS:15', timestamp: 15 },
    ]);
    assert.deepEqual(h.records(), []);
    await h.close();
  });

  it('testFunctionWithBroadcastState: the keyed side and its timers read the broadcast state', async () => {
    const expected = new Map([
      ['5.key', 5],
      ['34.key', 34],
      ['53.key', 53],
      ['12.key', 12],
      ['98.key', 98],
    ]);
    const h = await TestHarness.createTwoInput(
      keyedBroadcast<string, number, string>({
        processBroadcastElement(value, ctx) {
          ctx.getBroadcastState(STATE_DESCRIPTOR).put(`${value}.key`, value);
        },
        processElement(_value, ctx) {
          assert.deepEqual(new Map(ctx.getBroadcastState(STATE_DESCRIPTOR).immutableEntries()), expected);
          ctx.timerService().registerEventTimeTimer(41);
        },
        onTimer(timestamp, ctx, out) {
          assert.equal(ctx.getCurrentKey(), 'trigger');
          const entries = [...ctx.getBroadcastState(STATE_DESCRIPTOR).immutableEntries()];
          out.collect(`TS:${timestamp} ${entries.map(([k, v]) => `${k}=${v}`).join(',')}`);
        },
      }),
    );
    h.processWatermark1(10);
    h.processWatermark2(10);
    for (const [v, ts] of [
      [5, 10],
      [34, 12],
      [53, 15],
      [12, 16],
      [98, 19],
    ])
      h.processElement2(v!, ts);
    h.processElement1('trigger', 13);
    h.processElement2(51, 21);
    h.processWatermark1(50);
    h.processWatermark2(50);
    assert.deepEqual(h.output(), [
      { watermark: 10 },
      { value: 'TS:41 5.key=5,34.key=34,53.key=53,12.key=12,98.key=98,51.key=51', timestamp: 41 },
      { watermark: 50 },
    ]);
    await h.close();
  });

  const keysToRegister = ['test1', 'test2', 'test3'];
  const withOutput: KeyedBroadcastProcessFunction<string, string, number, string> = {
    processBroadcastElement(value, ctx) {
      for (const k of keysToRegister) ctx.getBroadcastState(STATE_DESCRIPTOR).put(k, value);
    },
    processElement(_value, ctx, out) {
      for (const [k, v] of ctx.getBroadcastState(STATE_DESCRIPTOR).immutableEntries())
        out.collect(`${k}=${v}`);
    },
  };

  /** Flink's findValidTriggerKey: the smallest number whose key lands on `subtask`. */
  function triggerKey(subtask: number, parallelism: number, maxParallelism = 10): string {
    for (let e = 0; ; e++) {
      const kg = keyGroupFor(normalizeKey(String(e)), maxParallelism);
      if (subtaskForKeyGroup(kg, maxParallelism, parallelism) === subtask) return String(e);
    }
  }

  for (const [name, from, to] of [
    ['testScaleUp', 2, 3],
    ['testScaleDown', 3, 2],
  ] as const) {
    it(`${name}: every subtask restores one copy of the broadcast state (${from} -> ${to})`, async () => {
      const build = keyedBroadcast(withOutput);
      const h1 = await TestHarness.createTwoInput(build, { parallelism: from, maxParallelism: 10 });
      h1.processElement2(3);
      const snapshot = h1.snapshot();
      await h1.close();
      const h2 = await TestHarness.restoreTwoInput(build, snapshot, { parallelism: to, maxParallelism: 10 });
      for (let s = 0; s < to; s++) h2.processElement1(triggerKey(s, to));
      assert.deepEqual(
        h2.records(),
        Array.from({ length: to }, () => ['test1=3', 'test2=3', 'test3=3']).flat(),
      );
      await h2.close();
    });
  }
});

describe('CoBroadcastWithKeyedOperatorTest (Flink), no key on the broadcast side', () => {
  it('testNoKeyedStateOnBroadcastSide: keyed state fails in processBroadcastElement, naming the operator', async () => {
    const h = await TestHarness.createTwoInput(
      keyedBroadcast<string, number, string>({
        count: undefined as unknown as ValueState<number>,
        open(ctx) {
          this.count = ctx.getState(new ValueStateDescriptor<number>('any'));
        },
        processElement(value, _ctx, out) {
          this.count.update((this.count.value() ?? 0) + 1);
          out.collect(`${value}:${this.count.value()}`);
        },
        processBroadcastElement() {
          this.count.value();
        },
      } as KeyedBroadcastProcessFunction<string, string, number, string> & { count: ValueState<number> }),
    );
    h.processElement1('k', 1);
    assert.throws(
      () => h.processElement2(1, 2),
      (e: unknown) =>
        e instanceof JobExecutionError &&
        /Co-Process-Broadcast-Keyed/.test(e.message) &&
        /no key set/.test(e.message),
    );
  });

  it('after applyToKeyedState and on the next keyed element, state is the element key’s', async () => {
    const count = new ValueStateDescriptor<number>('count');
    const h = await TestHarness.createTwoInput(
      keyedBroadcast<string, number, string>({
        state: undefined as unknown as ValueState<number>,
        open(ctx) {
          this.state = ctx.getState(count);
        },
        processElement(value, _ctx, out) {
          this.state.update((this.state.value() ?? 0) + 1);
          out.collect(`${value}:${this.state.value()}`);
        },
        processBroadcastElement(reset, ctx) {
          ctx.applyToKeyedState(count, (key: string, s: ValueState<number>) => {
            if (key === 'b') s.update(reset);
          });
        },
      } as KeyedBroadcastProcessFunction<string, string, number, string> & { state: ValueState<number> }),
    );
    h.processElement1('a', 1);
    h.processElement1('b', 2);
    h.processElement2(100, 3);
    h.processElement1('a', 4);
    h.processElement1('b', 5);
    assert.deepEqual(h.records(), ['a:1', 'b:1', 'a:2', 'b:101']);
    await h.close();
  });
});

describe('CoBroadcastWithNonKeyedOperatorTest (Flink)', () => {
  it('testMultiStateSupport / testBroadcastState at parallelism 2', async () => {
    const other = new MapStateDescriptor<number, string>('other-state');
    const fn: BroadcastProcessFunction<string, number, string> = {
      processBroadcastElement(value, ctx) {
        ctx.getBroadcastState(STATE_DESCRIPTOR).put(`${value}.key`, value);
        ctx.getBroadcastState(other).put(value, `${value}.value`);
      },
      processElement(value, ctx, out) {
        const a = [...ctx.getBroadcastState(STATE_DESCRIPTOR).immutableEntries()].map(
          ([k, v]) => `${k}=${v}`,
        );
        const b = [...ctx.getBroadcastState(other).immutableEntries()].map(([k, v]) => `${k}=${v}`);
        out.collect(`${value}: ${a.join(',')} | ${b.join(',')}`);
      },
    };
    const h = await TestHarness.createTwoInput(
      (a: DataStream<string>, b: DataStream<number>) =>
        a.rebalance().connect(b.broadcast(STATE_DESCRIPTOR, other)).process(fn),
      { parallelism: 2 },
    );
    h.processElement2(5, 10);
    h.processElement2(6, 11);
    h.processElement1('x', 12);
    h.processElement1('y', 13);
    assert.deepEqual(h.records(), [
      'x: 5.key=5,6.key=6 | 5=5.value,6=6.value',
      'y: 5.key=5,6.key=6 | 5=5.value,6=6.value',
    ]);
    await h.close();
  });
});

describe('broadcast state', () => {
  it('the non-broadcast side cannot write, and undeclared state fails naming the operator', async () => {
    const undeclared = new MapStateDescriptor<string, number>('typo');
    const h = await TestHarness.createTwoInput(
      keyedBroadcast<string, number, string>({
        processBroadcastElement() {},
        processElement(value, ctx, out) {
          const view = ctx.getBroadcastState(STATE_DESCRIPTOR) as unknown as Record<string, unknown>;
          out.collect(`${typeof view.put}/${typeof view.remove}/${typeof view.clear}`);
          if (value === 'typo') ctx.getBroadcastState(undeclared);
        },
      }),
    );
    h.processElement1('a', 1);
    assert.deepEqual(h.records(), ['undefined/undefined/undefined']);
    assert.throws(
      () => h.processElement1('typo', 2),
      (e: unknown) =>
        e instanceof JobExecutionError &&
        /Co-Process-Broadcast-Keyed/.test(e.message) &&
        /broadcast state 'typo' does not exist/.test(e.message),
    );
  });

  it('rejects a missing method, timers on a non-keyed stream and a bad descriptor when the job is built', () => {
    const env = StreamExecutionEnvironment.create();
    const a = env.fromElements('a');
    const b = env.fromElements(1).broadcast(STATE_DESCRIPTOR);
    assert.throws(() => a.connect(b).process({ processElement() {} } as never), ConfigurationError);
    assert.throws(
      () =>
        a.connect(b).process({
          processElement() {},
          processBroadcastElement() {},
          onTimer() {},
        } as BroadcastProcessFunction<string, number, string>),
      /timers need a keyed stream/,
    );
    assert.throws(() => env.fromElements(1).broadcast({ name: 'x' } as never), ConfigurationError);
    assert.throws(
      () => env.fromElements(1).broadcast(STATE_DESCRIPTOR, new MapStateDescriptor('broadcast-state')),
      /declared twice/,
    );
  });

  it('runs as a job: rules broadcast to a keyed stream at parallelism 3, checkpointed state restored at 2', async () => {
    type Rule = { type: string; limit: number };
    const rules = new MapStateDescriptor<string, number>('limits');
    const fn: KeyedBroadcastProcessFunction<
      string,
      { sensor: string; type: string; v: number },
      Rule,
      string
    > = {
      processBroadcastElement(rule, ctx) {
        ctx.getBroadcastState(rules).put(rule.type, rule.limit);
      },
      processElement(r, ctx, out) {
        const limit = ctx.getBroadcastState(rules).get(r.type);
        if (limit !== undefined && r.v > limit) out.collect(`${ctx.getCurrentKey()}:${r.v}>${limit}`);
      },
    };
    const build = (
      readings: DataStream<{ sensor: string; type: string; v: number }>,
      ruleStream: DataStream<Rule>,
    ) =>
      readings
        .keyBy((r) => r.sensor)
        .connect(ruleStream.broadcast(rules))
        .process(fn)
        .uid('alerts');
    const h1 = await TestHarness.createTwoInput(build, { parallelism: 3 });
    h1.processElement2({ type: 'temp', limit: 30 });
    h1.processElement2({ type: 'rpm', limit: 5000 });
    for (const s of ['s1', 's2', 's3', 's4']) h1.processElement1({ sensor: s, type: 'temp', v: 31 });
    const snapshot = h1.snapshot();
    await h1.close();
    const h2 = await TestHarness.restoreTwoInput(build, snapshot, { parallelism: 2 });
    for (const s of ['s1', 's2', 's3', 's4']) h2.processElement1({ sensor: s, type: 'rpm', v: 6000 });
    assert.deepEqual(h2.records().sort(), ['s1:6000>5000', 's2:6000>5000', 's3:6000>5000', 's4:6000>5000']);
    await h2.close();
  });
});
