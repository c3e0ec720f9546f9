// ValueState typing: a descriptor with a default value gives value(): T, one without gives T | undefined.
// The type assertions are checked by `npm run typecheck` (a wrong `isType` or an unused @ts-expect-error fails
// it); the runtime half checks what the types promise: an entry never set, cleared or expired reads as the default.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  StateTtlConfig,
  ValueStateDescriptor,
  type Collector,
  type DataStream,
  type KeyedProcessFunction,
  type RuntimeContext,
  type TriggerContext,
  type ValueState,
} from '../src/index.ts';
import { isType } from './support/is-type.ts';
import { TestHarness } from '../src/testing/index.ts';

describe('ValueState typing', () => {
  it('value() is T with a default value and T | undefined without one', () => {
    const withDefault = new ValueStateDescriptor<number>('count', { defaultValue: 0 });
    const inferred = new ValueStateDescriptor('count', { defaultValue: 0 });
    const withoutDefault = new ValueStateDescriptor<number>('last');
    const withTtlOnly = new ValueStateDescriptor<number>('last', {
      ttl: StateTtlConfig.newBuilder(1000).build(),
    });
    const undefinedDefault = new ValueStateDescriptor<number>('last', { defaultValue: undefined });

    assert.ok(isType<typeof withDefault, ValueStateDescriptor<number, number>>(true));
    assert.ok(isType<typeof inferred, ValueStateDescriptor<number, number>>(true));
    assert.ok(isType<typeof withoutDefault, ValueStateDescriptor<number, number | undefined>>(true));
    assert.ok(isType<typeof withTtlOnly, ValueStateDescriptor<number>>(true));
    assert.ok(isType<typeof undefinedDefault, ValueStateDescriptor<number>>(true));
    // @ts-expect-error a descriptor without a default value is not one with a default
    assert.ok(isType<typeof withoutDefault, ValueStateDescriptor<number, number>>(true));

    const ctx = undefined as unknown as RuntimeContext;
    const _read = () => ({
      count: ctx.getState(withDefault).value(),
      last: ctx.getState(withoutDefault).value(),
    });
    assert.ok(isType<ReturnType<typeof _read>['count'], number>(true));
    assert.ok(isType<ReturnType<typeof _read>['last'], number | undefined>(true));
    // @ts-expect-error without a default, value() may be undefined
    assert.ok(isType<ReturnType<typeof _read>['last'], number>(true));

    // A state read as T also fits a field typed the usual way, ValueState<T>; the reverse does not compile.
    const usual: ValueState<number> = undefined as unknown as ValueState<number, number>;
    // @ts-expect-error a state without a default does not read as T
    const defaulted: ValueState<number, number> = undefined as unknown as ValueState<number>;
    // @ts-expect-error the default value must be a T
    const wrongDefault = new ValueStateDescriptor<number>('n', { defaultValue: 'zero' });
    assert.deepEqual([usual, defaulted, wrongDefault.defaultValue], [undefined, undefined, 'zero']);

    // A trigger's partitioned state is typed from its descriptor the same way.
    const _fired = (tctx: TriggerContext) => tctx.getPartitionedState(withDefault).value();
    assert.ok(isType<ReturnType<typeof _fired>, number>(true));

    assert.ok(withDefault instanceof ValueStateDescriptor);
    assert.ok(!(withDefault instanceof Map));
    assert.equal(withDefault.kind, 'value');
    assert.equal(withDefault.defaultValue, 0);
    assert.deepEqual(
      [
        inferred.defaultValue,
        withoutDefault.defaultValue,
        withTtlOnly.defaultValue,
        undefinedDefault.defaultValue,
      ],
      [0, undefined, undefined, undefined],
    );
  });

  it('reads the default for a new key, after clear and after the TTL, as the type promises', async () => {
    const count = new ValueStateDescriptor<number>('count', {
      defaultValue: 0,
      ttl: StateTtlConfig.newBuilder(1_000).build(),
    });
    // A class, so that its fields are typed (`this` in an object literal passed to process() is not checked).
    class Counter implements KeyedProcessFunction<string, [string, string], string> {
      count!: ValueState<number, number>;
      last!: ValueState<string>;
      open(ctx: RuntimeContext): void {
        this.count = ctx.getState(count);
        this.last = ctx.getState(new ValueStateDescriptor<string>('last'));
      }
      processElement([key, value]: [string, string], _ctx: unknown, out: Collector<string>): void {
        if (value === 'reset') {
          this.count.clear();
          return;
        }
        // No `!` and no `?? 0`: value() is a number.
        const next = this.count.value() + 1;
        out.collect(`${key}:${next}:${this.last.value() ?? '-'}`);
        this.count.update(next);
        this.last.update(value);
      }
    }
    const h = await TestHarness.create((input: DataStream<[string, string]>) =>
      input.keyBy(([key]) => key).process(new Counter()),
    );
    h.setProcessingTime(0);
    h.processElement(['a', 'x']);
    h.processElement(['a', 'y']);
    h.processElement(['b', 'z']);
    h.processElement(['a', 'reset']);
    h.processElement(['a', 'w']);
    h.setProcessingTime(500);
    h.processElement(['b', 'v']);
    h.setProcessingTime(5_000);
    h.processElement(['b', 'u']);
    assert.deepEqual(h.records(), ['a:1:-', 'a:2:x', 'b:1:-', 'a:1:y', 'b:2:z', 'b:1:v']);
    await h.close();
  });
});
