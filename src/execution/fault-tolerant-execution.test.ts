// Fault-tolerant execution: restarts and their log lines, final statuses, cancelling while waiting to restart.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { CollectSink } from '../connectors/collect-sink.ts';
import { GeneratorSource } from '../connectors/generator-source.ts';
import { ConfigurationError, JobStalledError } from '../core/errors.ts';
import type { Sink } from '../core/sink.ts';
import type { Source } from '../core/source.ts';
import type { JobSnapshot } from '../runtime/job-snapshot.ts';
import { HeapStateBackend } from '../state/state-backend.ts';
import { RecordingLogger } from '../../test/support/recording-logger.ts';
import { freshDirs } from '../../test/support/fresh-dirs.ts';
import { JobCancelledError } from './job-cancelled-error.ts';
import { RestartStrategies } from './restart-strategies.ts';

const fresh = freshDirs('weir-fault-tolerant-');

/** A logger that also resolves a wait once a line matching `pattern` was logged. */
class WaitingLogger extends RecordingLogger {
  private waiting: { pattern: RegExp; done: () => void } | undefined = undefined;
  override warn(fields: Record<string, unknown>, message: string): void {
    super.warn(fields, message);
    if (this.waiting?.pattern.test(message) === true) this.waiting.done();
  }
  logged(pattern: RegExp): Promise<void> {
    if (this.messages.some((m) => pattern.test(m))) return Promise.resolve();
    return new Promise((done) => (this.waiting = { pattern, done }));
  }
}

/** A heap backend that counts the attempts it was told of. */
class CountingBackend extends HeapStateBackend {
  runs = 0;
  newRun(): void {
    this.runs++;
  }
}

/**
 * Numbers 0 … count-1 through a map that throws on a number `fails` picks, into `sink`; summed per parity on the
 * way, so the job has keyed state.
 */
function build(
  env: StreamExecutionEnvironment,
  count: number,
  fails: (n: number) => boolean,
  sink: CollectSink<number>,
): void {
  env
    .fromSource(
      GeneratorSource.of(count, (i) => i),
      undefined,
      'numbers',
    )
    .uid('numbers')
    .map((n) => {
      if (fails(n)) throw new Error(`injected at ${n}`);
      return n;
    }, 'check')
    .uid('check')
    .keyBy((n) => n % 2)
    .reduce((a, b) => a + b)
    .uid('sums')
    .sinkTo(sink, 'sink');
}

/** Fails on number `at`, `times` times. */
function failing(at: number, times: number): (n: number) => boolean {
  let left = times;
  return (n) => n === at && left-- > 0;
}

const failedAt = (n: number) =>
  `Operator 'check' (subtask 1/1) failed while processing record ${n}: injected at ${n}`;

describe('fault-tolerant execution', () => {
  it('restarts from the beginning without checkpoints, logging why, and ends FINISHED with the restart counted', async () => {
    const logger = new RecordingLogger();
    const env = StreamExecutionEnvironment.create({ logger });
    const backend = new CountingBackend();
    env.setStateBackend(backend);
    env.setRestartStrategy(RestartStrategies.fixedDelay(2, 0));
    const sink = new CollectSink<number>();
    build(env, 10, failing(5, 2), sink);
    const before = Date.now();
    const client = await env.executeAsync('restarts');
    const result = await client.result;
    const took = Date.now() - before;
    assert.deepEqual(logger.messages, [
      `job 'restarts' failed (${failedAt(5)}); restart 1 (fixed delay (2 attempts, 0 ms)) in 0 ms from the beginning`,
      `job 'restarts' failed (${failedAt(5)}); restart 2 (fixed delay (2 attempts, 0 ms)) in 0 ms from the beginning`,
    ]);
    assert.deepEqual(logger.lines[0]!.fields, { job: 'restarts', attempt: 1, delayMs: 0 });
    assert.deepEqual(logger.lines[1]!.fields, { job: 'restarts', attempt: 2, delayMs: 0 });
    assert.equal(backend.runs, 3);
    // Each attempt ran from the first number: the sums of the third run end the output.
    assert.deepEqual(sink.values.slice(-2), [20, 25]);
    assert.equal(result.jobName, 'restarts');
    assert.equal(result.workerStartupMs, 0);
    assert.ok(
      result.netRuntimeMs >= 0 && result.netRuntimeMs <= took,
      `${result.netRuntimeMs} ms of ${took}`,
    );
    assert.equal('stoppedWithSavepoint' in result, false);
    assert.deepEqual(
      result.metrics.find((m) => m.name === 'check')?.recordsIn,
      10,
      'the metrics are those of the last attempt',
    );
    const running = client.running;
    assert.equal(running.status, 'FINISHED');
    assert.equal(client.getJobStatus(), 'FINISHED');
    assert.equal(client.jobId, running.id);
    assert.equal(running.numRestarts, 2);
    assert.ok(running.endTime! >= running.startTime);
    assert.deepEqual(
      running.exceptionHistory().map((e) => [e.attempt, e.message]),
      [
        [2, failedAt(5)],
        [1, failedAt(5)],
      ],
    );
    assert.equal(running.failureCause, undefined);
    assert.equal(running.checkpoints.restored, undefined);
    // Without a web UI there is nothing to close.
    await client.closeWebUi();
  });

  it('fails for good once the strategy gives up: FAILED, with the root cause and the error itself', async () => {
    const logger = new RecordingLogger();
    const env = StreamExecutionEnvironment.create({ logger });
    env.setRestartStrategy(RestartStrategies.fixedDelay(1, 0));
    build(env, 10, failing(5, 2), new CollectSink<number>());
    const client = await env.executeAsync('gives-up');
    await assert.rejects(client.result, (e: Error) => e.message === failedAt(5));
    const running = client.running;
    assert.equal(running.status, 'FAILED');
    assert.equal(running.numRestarts, 1);
    assert.equal(running.failureCause, running.exceptionHistory()[0]);
    assert.equal(running.failureCause?.attempt, 2);
    assert.equal(logger.messages.length, 1);
    await assert.rejects(
      client.stopWithSavepoint(fresh('savepoints')),
      (e: Error) => e.message === "Job 'gives-up' is not running; cannot stop it with a savepoint",
    );
  });

  it('restarts with a state backend that is not told of new attempts (the heap backend has no newRun)', async () => {
    const logger = new RecordingLogger();
    const env = StreamExecutionEnvironment.create({ logger });
    env.setStateBackend(new HeapStateBackend());
    env.setRestartStrategy(RestartStrategies.fixedDelay(1, 0));
    const sink = new CollectSink<number>();
    build(env, 10, failing(5, 1), sink);
    await env.execute('heap');
    assert.equal(logger.messages.length, 1);
    assert.deepEqual(sink.values.slice(-2), [20, 25]);
  });

  it('fails a job whose snapshot does not fit it: FAILED with the cause, not running, and a cancel changes nothing', async () => {
    const env = StreamExecutionEnvironment.create();
    env.setRestartStrategy(RestartStrategies.fixedDelay(1, 0));
    build(env, 10, () => false, new CollectSink<number>());
    const client = await env.executeAsync('misfit', {
      restoreFrom: { version: 2 } as unknown as JobSnapshot,
    });
    const message = 'Not a Weir job snapshot (missing version 1 marker)';
    await assert.rejects(
      client.result,
      (e: Error) => e instanceof ConfigurationError && e.message === message,
    );
    assert.equal(client.getJobStatus(), 'FAILED');
    assert.equal(client.running.numRestarts, 0);
    assert.deepEqual(
      client.running.exceptionHistory().map((e) => [e.attempt, e.exceptionName, e.message]),
      [[1, 'ConfigurationError', message]],
    );
    assert.equal(client.running.failureCause, client.running.exceptionHistory()[0]);
    assert.ok(client.running.endTime! >= client.running.startTime);
    await assert.rejects(
      client.stopWithSavepoint(fresh('savepoints')),
      (e: Error) => e.message === "Job 'misfit' is not running; cannot stop it with a savepoint",
    );
    await client.cancel();
    assert.equal(client.getJobStatus(), 'FAILED');
  });

  it('fails a job that has nothing left to run, naming what its subtasks and checkpoints wait for (the stall watch)', async () => {
    let reading!: () => void;
    const read = new Promise<void>((done) => (reading = done));
    // A read that never completes and schedules nothing.
    const stuck: Source<number> = {
      boundedness: 'bounded',
      createReader: () => ({
        pollNext: () => {
          reading();
          return new Promise(() => {});
        },
      }),
    };
    const env = StreamExecutionEnvironment.create();
    env.enableCheckpointing(3_600_000, { storage: fresh('chk') });
    env.setRestartStrategy(RestartStrategies.noRestart());
    env
      .fromSource(stuck, undefined, 'stuck')
      .uid('stuck')
      .sinkTo(new CollectSink<number>(), 'sink')
      .uid('sink');
    const others = new Set(process.listeners('beforeExit'));
    const added = () => process.listeners('beforeExit').filter((l) => !others.has(l));
    const client = await env.executeAsync('stall');
    const [watch, ...more] = added();
    assert.ok(watch !== undefined && more.length === 0, 'the attempt watches for an empty event loop');
    await read;
    const savepoint = client.triggerSavepoint(fresh('savepoints'));
    // What Node does once the event loop is empty. (The test runner listens too, so the event itself is not sent.)
    watch.call(process, 0);
    const waits = [
      "'stuck' (1/1) waits for its reader's pollNext() to settle",
      "'sink' (1/1) waits for records or end of input from channel 1 ('stuck' 1/1)",
      "savepoint 1 waits for acknowledgements from 'stuck' subtask 0, 'sink' subtask 0",
    ];
    const message = `Job 'stall' has nothing left to run but is not finished: ${waits.join('; ')}`;
    await assert.rejects(savepoint, (e: Error) => e.message === `Savepoint 1 failed: ${message}`);
    await assert.rejects(
      client.result,
      (e: Error) =>
        e instanceof JobStalledError && e.message === message && e.waits.join('; ') === waits.join('; '),
    );
    assert.equal(client.getJobStatus(), 'FAILED');
    assert.deepEqual(added(), [], 'the watch ends with the attempt');
  });

  it('restarts from the initial snapshot when it has no checkpoint of its own', async () => {
    const logger = new RecordingLogger();
    const env = StreamExecutionEnvironment.create({ logger });
    env.setRestartStrategy(RestartStrategies.fixedDelay(1, 0));
    const sink = new CollectSink<number>();
    build(env, 10, failing(5, 1), sink);
    await env.execute('from-snapshot', { restoreFrom: { version: 1, operators: {} } });
    assert.deepEqual(logger.messages, [
      `job 'from-snapshot' failed (${failedAt(5)}); restart 1 (fixed delay (1 attempts, 0 ms)) in 0 ms from the initial snapshot`,
    ]);
    assert.deepEqual(sink.values.slice(-2), [20, 25]);
  });

  it('restarts from the latest checkpoint, and reports it as the one restored', async () => {
    const logger = new WaitingLogger();
    const env = StreamExecutionEnvironment.create({ logger });
    // Armed by the first completed checkpoint, the map fails once, on the next number (the input never ends).
    let armed = false;
    let fired = false;
    const completed: number[] = [];
    let onCompleted: (() => void) | undefined;
    env.enableCheckpointing(1, {
      storage: fresh('chk'),
      listener: (e) => {
        if (e.type !== 'completed') return;
        armed = true;
        completed.push(e.checkpointId);
        onCompleted?.();
      },
    });
    env.setRestartStrategy(RestartStrategies.fixedDelay(1, 0));
    build(env, Number.POSITIVE_INFINITY, () => armed && !fired && (fired = true), new CollectSink<number>());
    const client = await env.executeAsync('from-checkpoint');
    try {
      await logger.logged(/restart 1 .* from checkpoint \d+$/);
      const id = Number(/from checkpoint (\d+)$/.exec(logger.messages[0]!)![1]);
      // A checkpoint after the restored one completed: the new attempt runs.
      await new Promise<void>((resolve) => {
        onCompleted = () => completed.at(-1)! > id && resolve();
        onCompleted();
      });
      assert.equal(client.running.checkpoints.restored?.id, id);
      assert.ok(client.running.checkpoints.restored!.timestamp <= Date.now());
      assert.equal(client.running.numRestarts, 1);
      assert.equal(client.getJobStatus(), 'RUNNING');
    } finally {
      await client.cancel();
    }
    assert.equal(client.getJobStatus(), 'CANCELED');
  });

  it('cancelled while waiting to restart, it ends CANCELED at once', async () => {
    const logger = new WaitingLogger();
    const env = StreamExecutionEnvironment.create({ logger });
    // An hour's delay: the test ends only if the cancel cuts it short.
    env.setRestartStrategy(RestartStrategies.fixedDelay(1, 3_600_000));
    build(env, 10, failing(5, 1), new CollectSink<number>());
    const client = await env.executeAsync('cancel-in-delay');
    await logger.logged(/restart 1 .* in 3600000 ms from the beginning$/);
    assert.equal(client.getJobStatus(), 'RESTARTING');
    assert.equal(client.running.numRestarts, 1);
    await client.cancel();
    await assert.rejects(
      client.result,
      (e: Error) =>
        e instanceof JobCancelledError &&
        e.name === 'JobCancelledError' &&
        e.message === "Job 'cancel-in-delay' was cancelled",
    );
    assert.equal(client.getJobStatus(), 'CANCELED');
    await assert.rejects(
      client.stopWithSavepoint(fresh('savepoints')),
      (e: Error) => e.message === "Job 'cancel-in-delay' is not running; cannot stop it with a savepoint",
    );
  });

  it('refuses a stop-with-savepoint once cancelled, though the attempt is still winding down', async () => {
    const env = StreamExecutionEnvironment.create();
    env
      .fromSource(
        GeneratorSource.of(Number.POSITIVE_INFINITY, (i) => i),
        undefined,
        'numbers',
      )
      .sinkTo(new CollectSink<number>());
    const client = await env.executeAsync('cancelled');
    // Cancelled at once: the job never gets to run up the sink's memory.
    const cancelled = client.cancel();
    await assert.rejects(
      client.stopWithSavepoint(fresh('savepoints')),
      (e: Error) => e.message === "Job 'cancelled' is not running; cannot stop it with a savepoint",
    );
    await cancelled;
    assert.equal(client.getJobStatus(), 'CANCELED');
  });

  it('fails a job whose sink cannot close, restarting as for any failure', async () => {
    const logger = new RecordingLogger();
    const env = StreamExecutionEnvironment.create({ logger });
    env.setRestartStrategy(RestartStrategies.fixedDelay(1, 0));
    let closes = 0;
    const sink: Sink<number> = {
      createWriter: () => ({
        write() {},
        close() {
          closes++;
          throw new Error('cannot close');
        },
      }),
    };
    env
      .fromSource(
        GeneratorSource.of(3, (i) => i),
        undefined,
        'numbers',
      )
      .sinkTo(sink, 'sink');
    const client = await env.executeAsync('close-fails');
    await assert.rejects(client.result, /cannot close/);
    assert.equal(closes, 2);
    assert.equal(client.running.numRestarts, 1);
    assert.equal(client.getJobStatus(), 'FAILED');
    assert.match(logger.messages[0]!, /^job 'close-fails' failed \(.*cannot close\); restart 1 /);
  });

  it('after a stop-with-savepoint, a failure ends the job FAILED without a restart', async () => {
    const env = StreamExecutionEnvironment.create();
    env.setRestartStrategy(RestartStrategies.fixedDelay(5, 0));
    let written = 0;
    let reached!: () => void;
    const running = new Promise<void>((done) => (reached = done));
    const sink: Sink<number> = {
      createWriter: () => ({
        write() {
          if (++written === 100) reached();
        },
        close() {
          throw new Error('cannot close');
        },
      }),
    };
    env
      .fromSource(
        GeneratorSource.of(Number.POSITIVE_INFINITY, (i) => i),
        undefined,
        'numbers',
      )
      .uid('numbers')
      .sinkTo(sink, 'sink');
    const client = await env.executeAsync('stopped-then-failed');
    await running;
    const dir = fresh('savepoints');
    await assert.rejects(client.stopWithSavepoint(dir), /cannot close/);
    assert.equal(client.getJobStatus(), 'FAILED');
    assert.equal(client.running.numRestarts, 0);
    assert.equal(client.running.failureCause?.attempt, 1);
    assert.match(client.running.failureCause!.message, /cannot close/);
  });

  it('goes on running when the savepoint of a stop-with-savepoint fails', async () => {
    const env = StreamExecutionEnvironment.create();
    let written = 0;
    let waiting: { count: number; done: () => void } | undefined;
    const sink: Sink<number> = {
      createWriter: () => ({
        write() {
          written++;
          if (waiting !== undefined && written >= waiting.count) waiting.done();
        },
      }),
    };
    const writtenUpTo = (count: number) => new Promise<void>((done) => (waiting = { count, done }));
    env
      .fromSource(
        GeneratorSource.of(Number.POSITIVE_INFINITY, (i) => i),
        undefined,
        'numbers',
      )
      .uid('numbers')
      .sinkTo(sink, 'sink');
    const client = await env.executeAsync('stop-fails');
    try {
      await writtenUpTo(100);
      // A file where the savepoint's directory should be made.
      const dir = join(fresh('savepoints'), 'file');
      mkdirSync(dirname(dir), { recursive: true });
      writeFileSync(dir, '');
      await assert.rejects(
        client.stopWithSavepoint(dir),
        /^WeirError: Savepoint 1 failed: could not be written: /,
      );
      const after = written;
      await writtenUpTo(after + 1_000);
      assert.equal(client.getJobStatus(), 'RUNNING');
    } finally {
      await client.cancel();
    }
    assert.equal(client.getJobStatus(), 'CANCELED');
  });
});
