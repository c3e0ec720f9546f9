// Class instances in keyed state keep their class across snapshot and restore, or the snapshot fails clearly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../src/api/data-stream.ts';
import type { KeyedProcessFunction } from '../src/core/functions.ts';
import { IllegalStateError, JobExecutionError } from '../src/core/errors.ts';
import {
  ListStateDescriptor,
  MapStateDescriptor,
  ValueStateDescriptor,
} from '../src/core/state-descriptor.ts';
import type { BroadcastProcessFunction } from '../src/core/broadcast-process-function.ts';
import type { ListState, MapState, ValueState } from '../src/core/state.ts';
import { TestHarness } from '../src/testing/test-harness.ts';

class TaxiRide {
  constructor(
    readonly rideId: number,
    readonly startTime: number,
    readonly endTime: number,
  ) {}
  duration(): number {
    return this.endTime - this.startTime;
  }
}

interface Event {
  rideId: number;
  start: number;
  end: number;
}

/** Keeps the last ride per id (and every ride in a list), and reports durations through the class's method. */
function rides(withType: boolean) {
  return (input: DataStream<Event>) =>
    input
      .keyBy((e) => e.rideId)
      .process<string>({
        open(ctx) {
          const type = withType ? { type: TaxiRide } : {};
          this.last = ctx.getState(new ValueStateDescriptor<TaxiRide>('last ride', type));
          this.all = ctx.getListState(new ListStateDescriptor<TaxiRide>('all rides', type));
        },
        processElement(e, _ctx, out) {
          const previous = (this.last as ValueState<TaxiRide>).value();
          if (previous !== undefined) out.collect(`ride ${e.rideId} was ${previous.duration()} ms`);
          const ride = new TaxiRide(e.rideId, e.start, e.end);
          (this.last as ValueState<TaxiRide>).update(ride);
          (this.all as ListState<TaxiRide>).add(ride);
          const total = [...(this.all as ListState<TaxiRide>).get()].reduce((s, r) => s + r.duration(), 0);
          out.collect(`ride ${e.rideId} total ${total} ms`);
        },
      } as KeyedProcessFunction<number, Event, string> & Record<string, unknown>)
      .uid('rides');
}

describe('class instances in keyed state', () => {
  it('keep their class across snapshot and restore when the descriptor names it', async () => {
    const h = await TestHarness.create(rides(true));
    h.processElement({ rideId: 7, start: 1_000, end: 4_000 }, 1);
    const snapshot = h.snapshot();
    await h.close();
    const restored = await TestHarness.restore(rides(true), snapshot);
    restored.processElement({ rideId: 7, start: 5_000, end: 5_500 }, 2);
    assert.deepEqual(restored.records(), ['ride 7 was 3000 ms', 'ride 7 total 3500 ms']);
  });

  it('fail at the first snapshot, naming the state, the operator and the class, when it does not', async () => {
    const h = await TestHarness.create(rides(false));
    h.processElement({ rideId: 7, start: 1_000, end: 4_000 }, 1);
    assert.throws(
      () => h.snapshot(),
      (e: unknown) => {
        const error = e instanceof JobExecutionError ? e.cause : e;
        return (
          error instanceof IllegalStateError &&
          /State '(last ride|all rides)' of operator 'KeyedProcess' holds instances of class TaxiRide, which a snapshot would restore as plain objects; declare the class on the descriptor/.test(
            error.message,
          )
        );
      },
    );
  });

  it('plain objects, Maps, Dates and arrays need no declaration', async () => {
    const h = await TestHarness.create((input: DataStream<number>) =>
      input
        .keyBy((n) => n % 2)
        .process<number>({
          open(ctx) {
            this.state = ctx.getState(new ValueStateDescriptor<unknown>('plain'));
          },
          processElement(n, _ctx, out) {
            (this.state as ValueState<unknown>).update({ at: new Date(n), tags: new Map([['n', [n]]]) });
            out.collect(n);
          },
        } as KeyedProcessFunction<number, number, number> & Record<string, unknown>),
    );
    h.processElement(1, 1);
    assert.equal(h.snapshot().version, 1);
  });

  it('rejects a descriptor with both a type and a serializer', () => {
    assert.throws(
      () =>
        new ValueStateDescriptor<TaxiRide>('ride', {
          type: TaxiRide,
          serializer: { serialize: () => new Uint8Array(), deserialize: () => new TaxiRide(0, 0, 0) },
        }),
      /State 'ride': give either a serializer or a type, not both/,
    );
  });

  it('a MapState with a type keeps its values’ class', async () => {
    const build = (input: DataStream<Event>) =>
      input
        .keyBy(() => 'all')
        .process<string>({
          open(ctx) {
            this.byId = ctx.getMapState(
              new MapStateDescriptor<number, TaxiRide>('by id', { type: TaxiRide }),
            );
          },
          processElement(e, _ctx, out) {
            const byId = this.byId as MapState<number, TaxiRide>;
            for (const [id, ride] of byId.entries()) out.collect(`${id}: ${ride.duration()}`);
            byId.put(e.rideId, new TaxiRide(e.rideId, e.start, e.end));
          },
        } as KeyedProcessFunction<string, Event, string> & Record<string, unknown>)
        .uid('by id');
    const h = await TestHarness.create(build);
    h.processElement({ rideId: 1, start: 0, end: 10 }, 1);
    h.processElement({ rideId: 2, start: 0, end: 20 }, 2);
    const restored = await TestHarness.restore(build, h.snapshot());
    restored.processElement({ rideId: 3, start: 0, end: 30 }, 3);
    assert.deepEqual(restored.records(), ['1: 10', '2: 20']);
  });

  it('a field holding another class fails naming the field, with a type or without', async () => {
    class Driver {
      constructor(readonly name: string) {}
    }
    class Shift {
      constructor(readonly driver: Driver) {}
    }
    for (const [type, expected] of [
      [
        Shift,
        /State 'shift' of operator 'KeyedProcess' holds instances of class Driver at \.driver, which a snapshot would restore as plain objects; give the descriptor a serializer that restores it/,
      ],
      [
        undefined,
        /State 'shift' of operator 'KeyedProcess' holds instances of class Shift, which a snapshot would restore as plain objects; declare the class on the descriptor \(new ValueStateDescriptor\('shift', \{ type: Shift \}\)/,
      ],
    ] as const) {
      const h = await TestHarness.create((input: DataStream<string>) =>
        input
          .keyBy((name) => name)
          .process<string>({
            open(ctx) {
              this.shift = ctx.getState(
                new ValueStateDescriptor<Shift>('shift', type === undefined ? {} : { type }),
              );
            },
            processElement(name, _ctx, out) {
              (this.shift as ValueState<Shift>).update(new Shift(new Driver(name)));
              out.collect(name);
            },
          } as KeyedProcessFunction<string, string, string> & Record<string, unknown>),
      );
      h.processElement('ada', 1);
      assert.throws(
        () => h.snapshot(),
        (e: unknown) => {
          const error = e instanceof JobExecutionError ? e.cause : e;
          return error instanceof IllegalStateError && expected.test(error.message);
        },
      );
      await h.close();
    }
  });

  it('an empty list state does not hide the class of a later key’s elements', async () => {
    const h = await TestHarness.create((input: DataStream<number>) =>
      input
        .keyBy((n) => n)
        .process<number>({
          open(ctx) {
            this.rides = ctx.getListState(new ListStateDescriptor<TaxiRide>('rides'));
          },
          processElement(n, _ctx, out) {
            const rides = this.rides as ListState<TaxiRide>;
            if (n === 1) rides.update([]);
            else rides.add(new TaxiRide(n, 0, n));
            out.collect(n);
          },
        } as KeyedProcessFunction<number, number, number> & Record<string, unknown>),
    );
    h.processElement(1, 1);
    h.processElement(2, 2);
    assert.throws(() => h.snapshot(), /holds instances of class TaxiRide/);
    await h.close();
  });

  it('broadcast state keeps the class with a type and fails clearly without one', async () => {
    const build = (withType: boolean) => (events: DataStream<number>, rides: DataStream<TaxiRide>) => {
      const descriptor = new MapStateDescriptor<number, TaxiRide>(
        'rides',
        withType ? { type: TaxiRide } : {},
      );
      return events
        .connect(rides.broadcast(descriptor))
        .process<string>({
          processElement(id, ctx, out) {
            const ride = ctx.getBroadcastState(descriptor).get(id);
            out.collect(ride === undefined ? `${id}: none` : `${id}: ${ride.duration()}`);
          },
          processBroadcastElement(ride, ctx) {
            ctx.getBroadcastState(descriptor).put(ride.rideId, ride);
          },
        } as BroadcastProcessFunction<number, TaxiRide, string>)
        .uid('lookup');
    };
    const h = await TestHarness.createTwoInput(build(true));
    h.processElement2(new TaxiRide(4, 100, 175), 1);
    const restored = await TestHarness.restoreTwoInput(build(true), h.snapshot());
    restored.processElement1(4, 2);
    assert.deepEqual(restored.records(), ['4: 75']);

    const untyped = await TestHarness.createTwoInput(build(false));
    untyped.processElement2(new TaxiRide(4, 100, 175), 1);
    assert.throws(
      () => untyped.snapshot(),
      /State 'rides' of operator 'Co-Process-Broadcast' holds instances of class TaxiRide, which a snapshot would restore as plain objects/,
    );
  });
});
