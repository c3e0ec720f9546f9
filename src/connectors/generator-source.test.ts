// Tests of GeneratorSource: determinism at any parallelism, splits, rate limiting on a manual clock (alone and in a job).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError } from '../core/errors.ts';
import type { OutputTag } from '../core/output-tag.ts';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { ManualClock } from '../core/clock.ts';
import { CollectSink } from './collect-sink.ts';
import { GeneratorSource } from './generator-source.ts';
import { SeededRandom } from './seeded-random.ts';
import type { PollResult, ReaderOutput, SourceReader } from '../core/source.ts';
import { openSourceReader } from '../operators/split-assignment.ts';

interface Event {
  id: number;
  user: number;
  amount: number;
}

const makeEvent = (i: number, r: { nextInt(b: number): number; next(): number }): Event => ({
  id: i,
  user: r.nextInt(100),
  amount: Math.round(r.next() * 1000),
});

/** A ReaderOutput that keeps what it gets. */
class ListOutput<T> implements ReaderOutput<T> {
  readonly values: T[] = [];
  collect(value: T): void {
    this.values.push(value);
  }
  collectSide<X>(_tag: OutputTag<X>, _value: X): void {
    throw new Error('no side outputs expected');
  }
}

async function drain<T>(
  reader: SourceReader<T>,
  output: ListOutput<T>,
  maxPolls = Infinity,
): Promise<PollResult> {
  let result: PollResult = 'more';
  for (let i = 0; i < maxPolls && result === 'more'; i++) result = await reader.pollNext(output);
  return result;
}

const byId = (a: Event, b: Event) => a.id - b.id;

describe('GeneratorSource', () => {
  it('generates count records from their index', async () => {
    const env = StreamExecutionEnvironment.create();
    const squares = await env
      .fromSource(
        GeneratorSource.of(5, (i) => i * i),
        undefined,
        'squares',
      )
      .executeAndCollect();
    assert.deepEqual(squares, [0, 1, 4, 9, 16]);
  });

  it("seeds each record's random from (seed, index) at its first draw, whichever records draw", async () => {
    const env = StreamExecutionEnvironment.create();
    const values = await env
      .fromSource(
        GeneratorSource.of(
          9,
          (i, random) => (i % 3 === 1 ? [i, random.nextUint32(), random.nextUint32()] : [i]),
          { seed: 5 },
        ),
        undefined,
      )
      .executeAndCollect();
    const expected = Array.from({ length: 9 }, (_, i) => {
      if (i % 3 !== 1) return [i];
      const random = new SeededRandom(SeededRandom.seedFor(5, i));
      return [i, random.nextUint32(), random.nextUint32()];
    });
    assert.deepEqual(values, expected);
  });

  it('lets a generator function seed the random itself', async () => {
    const env = StreamExecutionEnvironment.create();
    const values = await env
      .fromSource(
        GeneratorSource.of(
          2,
          (i, random) => {
            random.setSeed(42 + i);
            return random.nextInt(1_000_000);
          },
          { seed: 5 },
        ),
        undefined,
      )
      .executeAndCollect();
    assert.deepEqual(values, [
      new SeededRandom(42).nextInt(1_000_000),
      new SeededRandom(43).nextInt(1_000_000),
    ]);
  });

  it('gives the same records for the same seed at parallelism 1 and 3, different for another seed', async () => {
    const run = async (parallelism: number, seed: number) => {
      const env = StreamExecutionEnvironment.create({ parallelism });
      const values = await env
        .fromSource(GeneratorSource.of(10_000, makeEvent, { seed }), undefined)
        .executeAndCollect();
      return values.sort(byId);
    };
    const one = await run(1, 42);
    const three = await run(3, 42);
    assert.equal(one.length, 10_000);
    assert.deepEqual(three, one);
    assert.deepEqual(
      one.map((e) => e.id),
      Array.from({ length: 10_000 }, (_, i) => i),
    );
    const other = await run(1, 43);
    assert.notDeepEqual(other, one);
    assert.deepEqual(await run(2, 42), one);
  });

  it('splits indices by stride: subtask s of p takes s, s + p, ...', async () => {
    const source = GeneratorSource.of(10, (i) => i);
    const out = new ListOutput<number>();
    await drain(openSourceReader(source, { subtaskIndex: 1, parallelism: 3, sourceName: 'g' }), out);
    assert.deepEqual(out.values, [1, 4, 7]);
  });

  it('emits batches of batchSize records per poll', async () => {
    const reader = openSourceReader(
      GeneratorSource.of(2_500, (i) => i),
      {
        subtaskIndex: 0,
        parallelism: 1,
        sourceName: 'g',
      },
    );
    const out = new ListOutput<number>();
    assert.equal(await reader.pollNext(out), 'more');
    assert.equal(out.values.length, 1000);
    assert.equal(await reader.pollNext(out), 'more');
    assert.equal(await reader.pollNext(out), 'end');
    assert.equal(out.values.length, 2500);
  });

  it('resumes from its snapshotted splits with every record exactly once', async () => {
    const source = GeneratorSource.of(5_000, makeEvent, { seed: 9, batchSize: 700 });
    const context = { subtaskIndex: 1, parallelism: 2, sourceName: 'g' };
    const first = openSourceReader(source, context);
    const before = new ListOutput<Event>();
    await drain(first, before, 2);
    const splits = structuredClone(first.snapshotState!());
    assert.deepEqual(splits, [{ next: 2801, stride: 2 }]);
    const second = openSourceReader(source, context, [[], splits]);
    const after = new ListOutput<Event>();
    assert.equal(await drain(second, after), 'end');
    const all = [...before.values, ...after.values];
    const full = new ListOutput<Event>();
    await drain(openSourceReader(source, context), full);
    assert.deepEqual(all, full.values);
    assert.equal(new Set(all.map((e) => e.id)).size, 2500);
  });

  it('deals the splits of another parallelism out exactly, and rejects invalid splits and options', async () => {
    const source = GeneratorSource.of(20, (i) => i, { batchSize: 2 });
    // Two old subtasks: 0 had emitted 0, 2, 4 (next 6); 1 had emitted 1 (next 3). Restored at parallelism 3.
    const restored: number[][] = [];
    for (let s = 0; s < 3; s++) {
      const reader = openSourceReader(source, { subtaskIndex: s, parallelism: 3, sourceName: 'g' }, [
        [{ next: 6, stride: 2 }],
        [{ next: 3, stride: 2 }],
      ]);
      const out = new ListOutput<number>();
      await drain(reader, out);
      restored.push(out.values);
    }
    assert.deepEqual(restored, [[6, 8, 10, 12, 14, 16, 18], [3, 5, 7, 9, 11, 13, 15, 17, 19], []]);
    // Finished splits are not checkpointed: a drained reader snapshots none.
    const drained = openSourceReader(source, { subtaskIndex: 0, parallelism: 1, sourceName: 'g' });
    await drain(drained, new ListOutput<number>());
    assert.deepEqual(drained.snapshotState!(), []);
    const context = { subtaskIndex: 0, parallelism: 2, sourceName: 'g' };
    assert.throws(() => openSourceReader(source, context, [3, []]), /not a list of splits/);
    assert.throws(() => openSourceReader(source, context, [[{ next: 1, stride: 0 }], []]), /not a split/);
    assert.throws(() => openSourceReader(source, context, [[[6, 2]], []]), /expected \{ next, stride \}/);
    assert.throws(() => GeneratorSource.of(-1, (i) => i), ConfigurationError);
    assert.throws(() => GeneratorSource.of(1.5, (i) => i), /non-negative integer or Infinity/);
    assert.throws(() => GeneratorSource.of(1, (i) => i, { ratePerSecond: 0 }), /ratePerSecond/);
    assert.equal(GeneratorSource.of(Infinity, (i) => i).boundedness, 'unbounded');
  });

  it('paces a rate-limited source on a manual clock', async () => {
    const clock = new ManualClock(0);
    // 2,000/s over 2 subtasks: 1,000/s each, in batches of 10 every 10 ms.
    const source = GeneratorSource.of(Infinity, (i) => i, { ratePerSecond: 2_000, clock });
    const reader = openSourceReader(source, { subtaskIndex: 0, parallelism: 2, sourceName: 'g' });
    const out = new ListOutput<number>();
    assert.equal(reader.pollNext(out), 'more'); // the first batch goes at once
    assert.equal(out.values.length, 10);
    const waiting = reader.pollNext(out);
    assert.ok(waiting instanceof Promise);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(out.values.length, 10, 'nothing before the clock moves');
    clock.advanceTo(9);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(out.values.length, 10);
    clock.advanceTo(10);
    assert.equal(await waiting, 'more');
    assert.equal(out.values.length, 20);
    // After a long pause there is no burst: one batch now, the next 10 ms later.
    clock.advanceTo(1_000);
    assert.equal(reader.pollNext(out), 'more');
    assert.ok(reader.pollNext(out) instanceof Promise);
    assert.deepEqual(
      out.values.slice(0, 30),
      Array.from({ length: 30 }, (_, i) => 2 * i),
    );
    await reader.close!();
  });

  it('close() ends a pending wait', async () => {
    const clock = new ManualClock(0);
    const reader = openSourceReader(
      GeneratorSource.of(100, (i) => i, { ratePerSecond: 100, clock }),
      {
        subtaskIndex: 0,
        parallelism: 1,
        sourceName: 'g',
      },
    );
    const out = new ListOutput<number>();
    reader.pollNext(out);
    const waiting = reader.pollNext(out);
    await reader.close!();
    assert.equal(await waiting, 'end');
    assert.equal(out.values.length, 1);
  });

  it('paces a job on its clock across subtasks: 500 records at 2,000/s, 20 per 10 ms, the last at 240 ms', async () => {
    const clock = new ManualClock(0);
    const env = StreamExecutionEnvironment.create({ parallelism: 2, clock });
    let count = 0;
    let target = 0;
    let reached: () => void = () => {};
    const values = new CollectSink<number>();
    env
      .fromSource(
        GeneratorSource.of(500, (i) => i, { ratePerSecond: 2_000 }),
        undefined,
        'paced',
      )
      .map((i) => {
        if (++count === target) reached();
        return i;
      })
      .sinkTo(values);
    const client = await env.executeAsync('paced');
    let finished = false;
    void client.result.then(() => (finished = true));
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    for (let t = 0; t <= 240; t += 10) {
      // Each subtask's next batch of 10 is due at t: wait for exactly those 20 records (an observed count).
      target = (t / 10 + 1) * 20;
      const batch = new Promise<void>((resolve) => (reached = resolve));
      clock.advanceTo(t);
      if (count < target) await batch;
      await settle();
      assert.equal(count, target, `records by ${t} ms`);
      clock.advanceTo(t + 9);
      await settle();
      assert.equal(count, target, `nothing more before ${t + 10} ms`);
    }
    await client.result;
    assert.ok(finished);
    assert.deepEqual(
      [...values.values].sort((a, b) => a - b),
      Array.from({ length: 500 }, (_, i) => i),
    );
  });
});
