// The process-function operators seen from the harness (Flink's KeyedProcessOperatorTest, CoProcessOperatorTest and
// CoBroadcastWith(Non)KeyedOperatorTest cases): timestamps of what timers emit, the contexts' clocks and keys,
// functions without onTimer, Promises returned by the wrong method, side outputs without a tag, and close().
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../api/data-stream.ts';
import type {
  BroadcastProcessFunction,
  KeyedBroadcastProcessFunction,
} from '../core/broadcast-process-function.ts';
import { JobExecutionError } from '../core/errors.ts';
import type {
  CoProcessFunction,
  KeyedCoProcessFunction,
  KeyedProcessFunction,
  ProcessFunction,
} from '../core/functions.ts';
import type { ProcessJoinFunction } from '../core/join-functions.ts';
import { OutputTag } from '../core/output-tag.ts';
import { MapStateDescriptor, ValueStateDescriptor } from '../core/state-descriptor.ts';
import type { ValueState } from '../core/state.ts';
import { TestHarness } from '../testing/index.ts';
import type { Output } from './output.ts';
import { StreamFilter } from './stream-filter.ts';
import { StreamMap } from './stream-map.ts';
import type { OperatorContext } from './stream-operator.ts';

const RULES = new MapStateDescriptor<string, number>('rules');

/** The job's failure message for a call that threw, without the operator prefix. */
function failsWith(call: () => void, message: RegExp): void {
  assert.throws(call, (e: unknown) => e instanceof JobExecutionError && message.test(e.message));
}

describe('ProcessOperator (not keyed)', () => {
  it('gives the record timestamp, no key, the clock and the watermark; side outputs carry the timestamp', async () => {
    const side = new OutputTag<string>('side');
    const h = await TestHarness.create(
      (input: DataStream<string>) =>
        input.process<string>({
          processElement(v, ctx, out) {
            const t = ctx.timerService();
            out.collect(
              `${v} ts=${ctx.timestamp()} key=${(ctx as unknown as { getCurrentKey(): unknown }).getCurrentKey()} now=${t.currentProcessingTime()} wm=${t.currentWatermark()}`,
            );
            ctx.output(side, v);
          },
        }),
      { initialProcessingTime: 40 },
    );
    h.processElement('a', 7);
    h.processWatermark(5);
    h.setProcessingTime(60);
    h.processElement('b');
    assert.deepEqual(h.output(), [
      { value: 'a ts=7 key=undefined now=40 wm=-Infinity', timestamp: 7 },
      { watermark: 5 },
      { value: 'b ts=undefined key=undefined now=60 wm=5', timestamp: undefined },
    ]);
    assert.deepEqual(h.sideOutput(side), [
      { value: 'a', timestamp: 7 },
      { value: 'b', timestamp: undefined },
    ]);
    await h.close();
  });

  it('refuses a side output without a tag, and a processElement that returns a Promise', async () => {
    for (const tag of [undefined, null]) {
      const h = await TestHarness.create((input: DataStream<string>) =>
        input.process<string>({
          processElement(_v, ctx) {
            ctx.output(tag as never, 'x');
          },
        }),
      );
      failsWith(() => h.processElement('a', 1), /ctx\.output needs an OutputTag/);
    }
    const h = await TestHarness.create((input: DataStream<string>) =>
      input.process<string>({ processElement: () => Promise.resolve() as never }),
    );
    failsWith(() => h.processElement('a', 1), /processElement\(\) returned a Promise/);
  });

  it("closes the function when the job closes (each subtask's own copy)", async () => {
    const closed: string[] = [];
    const fn: ProcessFunction<string, string> & { name: string } = {
      name: '',
      open(ctx) {
        this.name = `subtask ${ctx.subtaskIndex}`;
        assert.equal(typeof ctx.getMetricGroup().counter, 'function');
      },
      processElement() {},
      close() {
        closed.push(this.name);
      },
    };
    const h = await TestHarness.create((input: DataStream<string>) => input.process(fn), { parallelism: 2 });
    assert.deepEqual(closed, []);
    await h.close();
    assert.deepEqual(closed.sort(), ['subtask 0', 'subtask 1']);
    assert.equal(fn.name, '');
  });
});

describe('KeyedProcessOperator (Flink KeyedProcessOperatorTest)', () => {
  it('testTimestampAndWatermarkQuerying / testTimestampAndProcessingTimeQuerying', async () => {
    const h = await TestHarness.create(
      (input: DataStream<number>) =>
        input
          .keyBy((n) => n % 2)
          .process<string>({
            processElement(n, ctx, out) {
              const t = ctx.timerService();
              out.collect(
                `${n} key=${ctx.getCurrentKey()} wm=${t.currentWatermark()} now=${t.currentProcessingTime()}`,
              );
            },
          }),
      { initialProcessingTime: 17 },
    );
    h.processWatermark(5);
    h.processElement(17, 12);
    h.setProcessingTime(42);
    h.processWatermark(6);
    h.processElement(42, 13);
    assert.deepEqual(h.output(), [
      { watermark: 5 },
      { value: '17 key=1 wm=5 now=17', timestamp: 12 },
      { watermark: 6 },
      { value: '42 key=0 wm=6 now=42', timestamp: 13 },
    ]);
    await h.close();
  });

  it('testEventTimeTimers / testProcessingTimeTimers: the domain, and what onTimer emits carries', async () => {
    const h = await TestHarness.create((input: DataStream<number>) =>
      input
        .keyBy(() => 'k')
        .process<string>({
          processElement(n, ctx) {
            if (n > 0) ctx.timerService().registerEventTimeTimer(n);
            else ctx.timerService().registerProcessingTimeTimer(-n);
          },
          onTimer(time, ctx, out) {
            out.collect(`${ctx.timeDomain()} ${time} ts=${ctx.timestamp()}`);
          },
        }),
    );
    h.processElement(10, 0);
    h.processElement(-5, 0);
    h.setProcessingTime(5);
    h.processWatermark(10);
    assert.deepEqual(h.output(), [
      { value: 'PROCESSING_TIME 5 ts=5', timestamp: undefined },
      { value: 'EVENT_TIME 10 ts=10', timestamp: 10 },
      { watermark: 10 },
    ]);
    await h.close();
  });

  it('a function without onTimer lets its timers fire silently', async () => {
    const fn: KeyedProcessFunction<string, number, string> = {
      processElement(n, ctx) {
        ctx.timerService().registerEventTimeTimer(n);
        ctx.timerService().registerProcessingTimeTimer(n);
      },
    };
    const h = await TestHarness.create((input: DataStream<number>) => input.keyBy(() => 'k').process(fn));
    h.processElement(10, 1);
    h.setProcessingTime(20);
    h.processWatermark(20);
    assert.deepEqual(h.output(), [{ watermark: 20 }]);
    assert.equal(h.numEventTimeTimers() + h.numProcessingTimeTimers(), 0);
    await h.close();
  });

  it('an onTimer that returns a Promise fails the job; close() reaches the function', async () => {
    const closed: string[] = [];
    const h = await TestHarness.create((input: DataStream<number>) =>
      input
        .keyBy(() => 'k')
        .process<string>({
          processElement(n, ctx) {
            ctx.timerService().registerEventTimeTimer(n);
          },
          onTimer: () => Promise.resolve() as never,
          close: () => void closed.push('closed'),
        }),
    );
    h.processElement(10, 1);
    assert.throws(() => h.processWatermark(10), /onTimer\(\) returned a Promise/);
    await h.close();
    assert.deepEqual(closed, ['closed']);
  });
});

describe('CoProcessOperator', () => {
  const keyedCo =
    (fn: KeyedCoProcessFunction<string, string, string, string>) =>
    (a: DataStream<string>, b: DataStream<string>) =>
      a
        .connect(b)
        .keyBy(
          (v) => v[0]!,
          (v) => v[0]!,
        )
        .process(fn);

  it('keyed: timers in both domains on the user-timers service; what they emit carries their time or none', async () => {
    const h = await TestHarness.createTwoInput(
      keyedCo({
        processElement1(v, ctx, out) {
          ctx.timerService().registerEventTimeTimer(Number(v.slice(1)));
          out.collect(`1:${v}@${ctx.timestamp()}`);
        },
        processElement2(v, ctx, out) {
          ctx.timerService().registerProcessingTimeTimer(Number(v.slice(1)));
          out.collect(`2:${v}@${ctx.timestamp()} key=${ctx.getCurrentKey()}`);
        },
        onTimer(time, ctx, out) {
          out.collect(`${ctx.getCurrentKey()} ${ctx.timeDomain()} ${time} ts=${ctx.timestamp()}`);
        },
      }),
    );
    h.processElement1('a30', 3);
    h.processElement2('b20', 4);
    assert.deepEqual(
      h.eventTimeTimers().map((t) => `${t.service} ${t.key} ${t.timestamp}`),
      ['user-timers a 30'],
    );
    assert.deepEqual(
      h.processingTimeTimers().map((t) => `${t.service} ${t.key} ${t.timestamp}`),
      ['user-timers b 20'],
    );
    h.setProcessingTime(20);
    h.processWatermark1(30);
    h.processWatermark2(30);
    assert.deepEqual(h.output(), [
      { value: '1:a30@3', timestamp: 3 },
      { value: '2:b20@4 key=b', timestamp: 4 },
      { value: 'b PROCESSING_TIME 20 ts=20', timestamp: undefined },
      { value: 'a EVENT_TIME 30 ts=30', timestamp: 30 },
      { watermark: 30 },
    ]);
    await h.close();
  });

  it('names the method that returned a Promise; without onTimer timers fire silently; close() is called', async () => {
    const closed: string[] = [];
    const fn: KeyedCoProcessFunction<string, string, string, string> = {
      processElement1(v, ctx) {
        if (v === 'p1') return Promise.resolve() as never;
        ctx.timerService().registerEventTimeTimer(5);
        ctx.timerService().registerProcessingTimeTimer(5);
      },
      processElement2: () => Promise.resolve() as never,
      close: () => void closed.push('closed'),
    };
    const h = await TestHarness.createTwoInput(keyedCo(fn));
    h.processElement1('x', 1);
    h.setProcessingTime(5);
    h.processWatermark1(5);
    h.processWatermark2(5);
    assert.deepEqual(h.output(), [{ watermark: 5 }]);
    failsWith(() => h.processElement1('p1', 6), /processElement1\(\) returned a Promise/);
    failsWith(() => h.processElement2('p2', 6), /processElement2\(\) returned a Promise/);
    await h.close();
    assert.deepEqual(closed, ['closed']);

    const timerPromise = await TestHarness.createTwoInput(
      keyedCo({
        processElement1: (_v, ctx) => ctx.timerService().registerEventTimeTimer(5),
        processElement2() {},
        onTimer: () => Promise.resolve() as never,
      }),
    );
    timerPromise.processElement1('x', 1);
    timerPromise.processWatermark1(5);
    assert.throws(() => timerPromise.processWatermark2(5), /onTimer\(\) returned a Promise/);
  });

  it('not keyed: both inputs, their timestamps, the clock, and no timers', async () => {
    const fn: CoProcessFunction<string, number, string> = {
      processElement1: (v, ctx, out) =>
        out.collect(`${v}@${ctx.timestamp()} now=${ctx.timerService().currentProcessingTime()}`),
      processElement2: (n, ctx, out) => out.collect(`${n}@${ctx.timestamp()}`),
    };
    const h = await TestHarness.createTwoInput(
      (a: DataStream<string>, b: DataStream<number>) => a.connect(b).process(fn),
      { initialProcessingTime: 9 },
    );
    h.processElement1('a', 1);
    h.processElement2(2);
    assert.deepEqual(h.records(), ['a@1 now=9', '2@undefined']);
    await h.close();
  });
});

describe('CoBroadcastOperator (Flink CoBroadcastWithKeyedOperatorTest)', () => {
  const keyed =
    (fn: KeyedBroadcastProcessFunction<string, string, number, string>) =>
    (a: DataStream<string>, b: DataStream<number>) =>
      a
        .keyBy((v) => v)
        .connect(b.broadcast(RULES))
        .process<string>(fn);

  it('testFunctionWithTimer in both domains: the timer service, the domain, the clock and the watermark', async () => {
    const h = await TestHarness.createTwoInput(
      keyed({
        processElement(v, ctx, out) {
          ctx.timerService().registerEventTimeTimer(30);
          ctx.timerService().registerProcessingTimeTimer(20);
          out.collect(`${v} now=${ctx.currentProcessingTime()} wm=${ctx.currentWatermark()}`);
        },
        processBroadcastElement(n, ctx, out) {
          out.collect(
            `rule ${n} now=${ctx.currentProcessingTime()} wm=${ctx.currentWatermark()} ts=${ctx.timestamp()}`,
          );
        },
        onTimer(time, ctx, out) {
          out.collect(`${ctx.getCurrentKey()} ${ctx.timeDomain()} ${time} ts=${ctx.timestamp()}`);
        },
      }),
      { initialProcessingTime: 3 },
    );
    h.processWatermark1(2);
    h.processWatermark2(2);
    h.processElement1('a', 5);
    h.processElement2(7);
    assert.deepEqual(
      h.eventTimeTimers().map((t) => `${t.service} ${t.key} ${t.timestamp}`),
      ['user-timers a 30'],
    );
    h.setProcessingTime(20);
    h.processWatermark1(30);
    h.processWatermark2(30);
    assert.deepEqual(h.output(), [
      { watermark: 2 },
      { value: 'a now=3 wm=2', timestamp: 5 },
      { value: 'rule 7 now=3 wm=2 ts=undefined', timestamp: undefined },
      { value: 'a PROCESSING_TIME 20 ts=20', timestamp: undefined },
      { value: 'a EVENT_TIME 30 ts=30', timestamp: 30 },
      { watermark: 30 },
    ]);
    await h.close();
  });

  it('names the method that returned a Promise; without onTimer timers fire silently; close() is called', async () => {
    const closed: string[] = [];
    const h = await TestHarness.createTwoInput(
      keyed({
        processElement(v, ctx) {
          if (v === 'p') return Promise.resolve() as never;
          ctx.timerService().registerEventTimeTimer(5);
        },
        processBroadcastElement: () => Promise.resolve() as never,
        close: () => void closed.push('closed'),
      }),
    );
    h.processElement1('a', 1);
    h.processWatermark1(5);
    h.processWatermark2(5);
    assert.deepEqual(h.output(), [{ watermark: 5 }]);
    failsWith(() => h.processElement1('p', 6), /processElement\(\) returned a Promise/);
    failsWith(() => h.processElement2(1, 6), /processBroadcastElement\(\) returned a Promise/);
    await h.close();
    assert.deepEqual(closed, ['closed']);

    const timerPromise = await TestHarness.createTwoInput(
      keyed({
        processElement: (_v, ctx) => ctx.timerService().registerEventTimeTimer(5),
        processBroadcastElement() {},
        onTimer: () => Promise.resolve() as never,
      }),
    );
    timerPromise.processElement1('a', 1);
    timerPromise.processWatermark1(5);
    assert.throws(() => timerPromise.processWatermark2(5), /onTimer\(\) returned a Promise/);
  });

  it('refuses a side output without a tag on either side', async () => {
    for (const side of [1, 2]) {
      const h = await TestHarness.createTwoInput(
        keyed({
          processElement: (_v, ctx) => ctx.output(null as never, 'x'),
          processBroadcastElement: (_n, ctx) => ctx.output(undefined as never, 'x'),
        }),
      );
      failsWith(
        () => (side === 1 ? h.processElement1('a', 1) : h.processElement2(1, 1)),
        /ctx\.output needs an OutputTag/,
      );
    }
  });

  it('after applyToKeyedState the broadcast side has no key again', async () => {
    const count = new ValueStateDescriptor<number>('count');
    const seen: string[] = [];
    const h = await TestHarness.createTwoInput(
      keyed({
        state: undefined as unknown as ValueState<number>,
        open(ctx) {
          this.state = ctx.getState(count);
        },
        processElement(_v) {
          this.state.update(1);
        },
        processBroadcastElement(_n, ctx) {
          ctx.applyToKeyedState(count, (key: string) => seen.push(key));
          this.state.value();
        },
      } as KeyedBroadcastProcessFunction<string, string, number, string> & { state: ValueState<number> }),
    );
    h.processElement1('a', 1);
    failsWith(() => h.processElement2(1, 2), /no key set/);
    assert.deepEqual(seen, ['a']);
  });
});

describe('CoBroadcastOperator, not keyed (Flink CoBroadcastWithNonKeyedOperatorTest)', () => {
  const nonKeyed =
    (fn: BroadcastProcessFunction<string, number, string>) =>
    (a: DataStream<string>, b: DataStream<number>) =>
      a.connect(b.broadcast(RULES)).process<string>(fn);

  it('the clock and the watermark on both sides', async () => {
    const h = await TestHarness.createTwoInput(
      nonKeyed({
        processElement: (v, ctx, out) =>
          out.collect(
            `${v} now=${ctx.currentProcessingTime()} wm=${ctx.currentWatermark()} ts=${ctx.timestamp()}`,
          ),
        processBroadcastElement: (n, ctx, out) => out.collect(`rule ${n} now=${ctx.currentProcessingTime()}`),
      }),
      { initialProcessingTime: 8 },
    );
    h.processWatermark1(4);
    h.processWatermark2(4);
    h.processElement1('a', 6);
    h.processElement2(1, 7);
    assert.deepEqual(h.records(), ['a now=8 wm=4 ts=6', 'rule 1 now=8']);
    await h.close();
  });

  it('keyed-only calls fail naming the operator and the call', async () => {
    const calls: [string, (ctx: any) => unknown][] = [
      ['getCurrentKey', (ctx) => ctx.getCurrentKey()],
      ['timerService', (ctx) => ctx.timerService()],
    ];
    for (const [name, call] of calls) {
      const h = await TestHarness.createTwoInput(
        nonKeyed({ processElement: (_v, ctx) => void call(ctx), processBroadcastElement() {} }),
      );
      failsWith(
        () => h.processElement1('a', 1),
        new RegExp(
          `Operator '[^']+': ${name}\\(\\) needs a keyed stream connected to the broadcast stream \\(keyBy\\(\\.\\.\\.\\)\\.connect\\(broadcastStream\\)\\)`,
        ),
      );
    }
    const h = await TestHarness.createTwoInput(
      nonKeyed({
        processElement() {},
        processBroadcastElement: (_n, ctx) =>
          (ctx as unknown as { applyToKeyedState(d: unknown, f: unknown): void }).applyToKeyedState(
            new ValueStateDescriptor('x'),
            () => {},
          ),
      }),
    );
    failsWith(
      () => h.processElement2(1, 1),
      /Operator '[^']+': applyToKeyedState\(\) needs a keyed stream connected to the broadcast stream/,
    );
  });
});

describe('IntervalJoinOperator contexts', () => {
  it('refuses a side output without a tag; close() reaches the join function', async () => {
    const closed: string[] = [];
    const fn: ProcessJoinFunction<number, number, string> = {
      processElement: (_l, _r, ctx) => ctx.output(undefined as never, 'x'),
      close: () => void closed.push('closed'),
    };
    const h = await TestHarness.createTwoInput((a: DataStream<number>, b: DataStream<number>) =>
      a
        .keyBy(() => 'k')
        .intervalJoin(b.keyBy(() => 'k'))
        .between(0, 0)
        .process(fn),
    );
    h.processElement1(1, 5);
    failsWith(() => h.processElement2(1, 5), /ctx\.output needs an OutputTag/);
    await h.close();
    assert.deepEqual(closed, ['closed']);
  });
});

describe('the simple operators, driven by hand', () => {
  class Trace implements Output<unknown> {
    readonly events: string[] = [];
    collect(value: unknown, timestamp: number): void {
      this.events.push(`r:${String(value)}@${timestamp}`);
    }
    collectSide(): void {}
    emitWatermark(watermark: number): void {
      this.events.push(`w:${watermark}`);
    }
    emitWatermarkStatus(idle: boolean): void {
      this.events.push(idle ? 'idle' : 'active');
    }
  }

  it('filter keeps what the function accepts, with its timestamp, and refuses a Promise', () => {
    const trace = new Trace();
    const op = new StreamFilter<number>((n) => n > 1);
    op.setup({} as OperatorContext, trace);
    op.processElement(1, 10);
    op.processElement(2, 20);
    op.processElement(3, Number.NaN);
    assert.deepEqual(trace.events, ['r:2@20', 'r:3@NaN']);
    const promising = new StreamFilter<number>(() => Promise.resolve(false) as never);
    promising.setup({} as OperatorContext, trace);
    assert.throws(() => promising.processElement(1, 1), /filter\(\) returned a Promise/);
    assert.deepEqual(trace.events, ['r:2@20', 'r:3@NaN']);
  });

  it('by default an operator forwards watermarks and idleness, and keeps per-subtask operator state', () => {
    const trace = new Trace();
    const op = new StreamMap<number, number>((n) => n * 2);
    op.setup({} as OperatorContext, trace);
    op.processWatermarkStatus(true);
    op.processWatermark(4);
    op.processElement(5, 6);
    op.processWatermarkStatus(false);
    assert.deepEqual(trace.events, ['idle', 'w:4', 'r:10@6', 'active']);
    assert.equal(op.operatorStateDistribution, 'per-subtask');
    assert.equal(op.snapshotOperatorState(), undefined);
  });
});
