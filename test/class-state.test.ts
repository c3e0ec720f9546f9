// Class instances in keyed state keep their class across snapshot and restore, or the snapshot fails clearly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataStream } from '../src/api/data-stream.ts';
import type { KeyedProcessFunction } from '../src/core/functions.ts';
import { IllegalStateError, JobExecutionError } from '../src/core/errors.ts';
import { ListStateDescriptor, ValueStateDescriptor } from '../src/core/state-descriptor.ts';
import type { ListState, ValueState } from '../src/core/state.ts';
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
});
