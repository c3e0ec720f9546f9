// Failures: a throwing user function fails the job with the operator, subtask and record; bad configuration is refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError, JobExecutionError, StreamExecutionEnvironment } from '../src/index.ts';

describe('failures and configuration errors', () => {
  it('rejects execute() with an error naming the operator, subtask and record; the cause is kept', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    env
      .fromElements({ id: 1 }, { id: 2 }, { id: 3 })
      .keyBy((e) => e.id)
      .map((e) => {
        if (e.id === 2) throw new RangeError('id 2 is cursed');
        return e;
      })
      .name('Curse check')
      .print();
    await assert.rejects(env.execute('failing'), (error: unknown) => {
      assert.ok(error instanceof JobExecutionError);
      assert.equal(error.location.operator, 'Curse check');
      assert.equal(error.location.parallelism, 2);
      assert.equal(error.location.record, '{"id":2}');
      assert.ok(error.cause instanceof RangeError);
      assert.match(
        error.message,
        /^Operator 'Curse check' \(subtask [12]\/2\) failed while processing record \{"id":2\}: id 2 is cursed$/,
      );
      return true;
    });
  });

  it('truncates huge records in the message', async () => {
    const env = StreamExecutionEnvironment.create();
    env
      .fromElements('x'.repeat(10_000))
      .filter(() => {
        throw new Error('nope');
      })
      .print();
    await assert.rejects(
      env.execute(),
      (error: Error) => error.message.length < 400 && /chars\)/.test(error.message),
    );
  });

  it('names a failing timer callback', async () => {
    const env = StreamExecutionEnvironment.create();
    env
      .fromElements(1)
      .keyBy((n) => n)
      .process(
        {
          processElement(_n, ctx) {
            ctx.timerService().registerEventTimeTimer(10);
          },
          onTimer() {
            throw new Error('timer exploded');
          },
        },
        'Timer owner',
      )
      .print();
    await assert.rejects(
      env.execute(),
      /Operator 'Timer owner' \(subtask 1\/1\) failed while processing the final watermark: timer exploded/,
    );
  });

  it('refuses invalid configuration when the job is built', async () => {
    assert.throws(() => StreamExecutionEnvironment.create({ parallelism: 0 }), ConfigurationError);
    assert.throws(
      () => StreamExecutionEnvironment.create({ parallelism: 200 }),
      /exceeds max parallelism 128/,
    );
    const env = StreamExecutionEnvironment.create();
    assert.throws(() => env.fromElements(1).map('not a function' as never), /map\(\) needs a function/);
    env
      .fromElements(1)
      .map((n) => n)
      .setParallelism(300)
      .print();
    await assert.rejects(env.execute(), /Operator 'Map': parallelism 300 exceeds max parallelism 128/);
    const env2 = StreamExecutionEnvironment.create();
    env2
      .fromElements(1)
      .map((n) => n)
      .setParallelism(2)
      .forward()
      .map((n) => n)
      .setParallelism(3)
      .print();
    await assert.rejects(env2.execute(), /Forward partitioning .* needs equal parallelism/);
    const env3 = StreamExecutionEnvironment.create();
    await assert.rejects(env3.execute(), ConfigurationError);
  });
});
