// JobRuntime's source drivers, driven directly: batches of unbounded and bounded readers, asynchronous polls, barriers
// at batch boundaries, stop-with-savepoint, both kinds of backpressure, failures, and what describeWaits says meanwhile.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CollectSink,
  ConfigurationError,
  JobExecutionError,
  JobStalledError,
  ManualClock,
  StreamExecutionEnvironment,
} from '../index.ts';
import type { PollResult, ReaderOutput, Source } from '../core/source.ts';
import { MAX_WATERMARK } from '../core/time-domain.ts';
import { WatermarkStrategy } from '../time/watermark-strategy.ts';
import { AbstractStreamOperator, type OneInputStreamOperator } from '../operators/stream-operator.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import { JobRuntime, type JobRuntimeOptions } from './job-runtime.ts';
import type { JobSnapshot } from './job-snapshot.ts';
import type { Subtask } from './subtask.ts';
import { waitTurns } from '../../test/support/wait-for.ts';

const barrier = (id: number, kind: CheckpointBarrier['kind'] = 'checkpoint'): CheckpointBarrier => ({
  id,
  timestamp: 0,
  kind,
});

/** One poll of a scripted reader: emits into the output and says whether more may follow. */
type Poll = (out: ReaderOutput<number>) => PollResult | Promise<PollResult>;

/** A poll that emits `values` (timestamp 10 × value) and says more may follow. */
const emit =
  (...values: number[]): Poll =>
  (out) => {
    for (const v of values) out.collect(v, v * 10);
    return 'more';
  };

const end: Poll = () => 'end';

/** A poll whose result the test settles (after emitting `values`), with `settle`. */
function pending(...values: number[]): { poll: Poll; settle: (result: PollResult | Error) => void } {
  let settle: (result: PollResult | Error) => void = () => {};
  const poll: Poll = (out) =>
    new Promise<PollResult>((resolve, reject) => {
      settle = (result) => {
        for (const v of values) out.collect(v, v * 10);
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
    });
  return { poll, settle: (result) => settle(result) };
}

/**
 * A source whose reader of subtask i runs `polls[i]` one per pollNext, counting them under the source's name (with
 * the subtask's number when there are several); a poll past the script fails.
 */
function scripted(
  boundedness: 'bounded' | 'unbounded',
  perSubtask: Poll[][],
  counts: Map<string, number>,
  name: string,
) {
  const source: Source<number> = {
    boundedness,
    createReader: (context) => {
      let n = 0;
      const polls = perSubtask[context.subtaskIndex]!;
      const counted = perSubtask.length === 1 ? name : `${name} ${context.subtaskIndex + 1}`;
      return {
        pollNext(out) {
          counts.set(counted, n + 1);
          const poll = polls[n++];
          if (poll === undefined) throw new Error(`${counted} polled past its script`);
          return poll(out);
        },
      };
    },
  };
  return source;
}

/** Logs what reaches it: `rec<subtask>: value@timestamp`, `rec<subtask>: wm <watermark>`, `rec<subtask>: end`. */
class Recorder extends AbstractStreamOperator<number> implements OneInputStreamOperator<number, number> {
  constructor(private readonly log: string[]) {
    super();
  }
  private get name(): string {
    return `rec${this.context.subtaskIndex + 1}`;
  }
  processElement(value: number, timestamp: number): void {
    this.log.push(`${this.name}: ${value}@${timestamp}`);
    this.output.collect(value, timestamp);
  }
  override processWatermark(watermark: number): void {
    this.log.push(`${this.name}: wm ${watermark === MAX_WATERMARK ? 'max' : watermark}`);
    super.processWatermark(watermark);
  }
  override processWatermarkStatus(idle: boolean): void {
    this.log.push(`${this.name}: ${idle ? 'idle' : 'active'}`);
  }
  override endInput(): void {
    this.log.push(`${this.name}: end`);
  }
}

/**
 * Sources named by `scripts` (one subtask each, in that order), unioned, → `shape` → 'rec' (a Recorder) → sink.
 * `forward`: rec has one subtask fed directly; `hash`: rec has two subtasks, each fed by every source (one channel
 * per source); `spread`: every source feeds 'Map' (2, rebalance), which feeds rec (2, hash), so each rec subtask has
 * two channels that only the first source can deliver barriers on.
 */
function build(
  scripts: Record<string, { polls: Poll[] | Poll[][]; bounded?: boolean }>,
  shape: 'forward' | 'hash' | 'spread' = 'forward',
  options: Partial<JobRuntimeOptions> = {},
  strategy: WatermarkStrategy<number> = WatermarkStrategy.forMonotonousTimestamps<number>(),
) {
  const env = StreamExecutionEnvironment.create({ parallelism: 1 });
  const log: string[] = [];
  const polls = new Map<string, number>();
  const streams = Object.entries(scripts).map(([name, s]) => {
    const perSubtask = (Array.isArray(s.polls[0]) ? s.polls : [s.polls]) as Poll[][];
    return env
      .fromSource(
        scripted(s.bounded === true ? 'bounded' : 'unbounded', perSubtask, polls, name),
        strategy,
        name,
      )
      .uid(name)
      .setParallelism(perSubtask.length);
  });
  let stream = streams[0]!.union(...streams.slice(1));
  if (shape === 'spread')
    stream = stream
      .rebalance()
      .map((x: number) => x)
      .setParallelism(2);
  const keyed = shape === 'forward' ? stream : stream.keyBy((x: number) => x % 2);
  keyed
    .transform('rec', () => new Recorder(log))
    .uid('rec')
    .setParallelism(shape === 'forward' ? 1 : 2)
    .sinkTo(new CollectSink<number>());
  const graph = env.buildGraph();
  const runtime = new JobRuntime(graph, { clock: new ManualClock(), ...options });
  const of = (name: string): Subtask[] => runtime.subtasksOf(graph.nodes.find((n) => n.name === name)!);
  return { runtime, log, polls, of };
}

async function run(runtime: JobRuntime): Promise<void> {
  await runtime.open();
  await runtime.runSources();
  await runtime.close();
}

describe('JobRuntime driving unbounded sources', () => {
  it('polls batch by batch, one per turn of the event loop, until the reader ends, then ends the output', async () => {
    const { runtime, log, polls, of } = build({ src: { polls: [emit(1, 2), emit(3), end] } });
    await runtime.open();
    const done = runtime.runSources();
    // The first batch went out at once; the driver then lets the event loop run.
    assert.deepEqual(log, ['rec1: 1@10', 'rec1: 2@20']);
    assert.deepEqual(runtime.describeWaits()[0], "'src' (1/1) waits for its next turn on the event loop");
    let seen = 0;
    setImmediate(() => (seen = polls.get('src')!));
    await done;
    assert.equal(seen, 2, 'one batch per turn');
    // The last periodic watermark (largest timestamp - 1), then the final one, then the end of input.
    assert.deepEqual(log, ['rec1: 1@10', 'rec1: 2@20', 'rec1: 3@30', 'rec1: wm 29', 'rec1: end']);
    assert.equal(of('src')[0]!.isFinished, true);
    assert.equal(of('src')[0]!.output.currentWatermark, 29, 'an unbounded source emits no final watermark');
    assert.deepEqual(runtime.describeWaits(), []);
    await runtime.close();
  });

  it("says a source waits for its reader's pollNext() while an asynchronous poll is pending", async () => {
    const second = pending(2);
    const { runtime, log, polls } = build({ src: { polls: [emit(1), second.poll, end] } });
    await runtime.open();
    const done = runtime.runSources();
    await waitTurns('the second poll', () => polls.get('src') === 2);
    assert.deepEqual(runtime.describeWaits(), [
      "'src' (1/1) waits for its reader's pollNext() to settle",
      "'rec' (1/1) waits for records or end of input from channel 1 ('src' 1/1)",
      "'Sink' (1/1) waits for records or end of input from channel 1 ('rec' 1/1)",
    ]);
    second.settle('more');
    await done;
    assert.deepEqual(log, ['rec1: 1@10', 'rec1: 2@20', 'rec1: wm 19', 'rec1: end']);
    assert.equal(polls.get('src'), 3);
  });

  it('injects a pending barrier at the next batch boundary, after the records polled before it', async () => {
    const snapshots: string[] = [];
    const { runtime, log } = build({ src: { polls: [emit(1), emit(2), end] } }, 'forward', {
      onSubtaskSnapshot: (subtask, b) => log.push(`snapshot ${subtask.node.name} @${b.id}`),
    });
    await runtime.open();
    const done = runtime.runSources();
    runtime.triggerCheckpoint(barrier(7));
    await done;
    assert.deepEqual(snapshots, []);
    assert.deepEqual(log, [
      'rec1: 1@10',
      'snapshot src @7',
      'snapshot rec @7',
      'snapshot Sink @7',
      'rec1: 2@20',
      'rec1: wm 19',
      'rec1: end',
    ]);
  });

  it('stops after its barriers once the savepoint completed: no last watermark, no end of input', async () => {
    const { runtime, log, polls, of } = build({ src: { polls: [emit(1), emit(2), end] } }, 'forward', {
      onSubtaskSnapshot: (subtask, b) => log.push(`snapshot ${subtask.node.name} @${b.id}`),
    });
    await runtime.open();
    const done = runtime.runSources();
    runtime.triggerCheckpoint(barrier(3, 'savepoint'));
    let decide: (stop: boolean) => void = () => {};
    runtime.stopSourcesAfterBarriers(new Promise<boolean>((resolve) => (decide = resolve)));
    await waitTurns('the savepoint barrier', () => log.length === 4);
    assert.deepEqual(runtime.describeWaits(), [
      "'src' (1/1) waits for the savepoint to complete before it stops",
      "'rec' (1/1) waits for records or end of input from channel 1 ('src' 1/1)",
      "'Sink' (1/1) waits for records or end of input from channel 1 ('rec' 1/1)",
    ]);
    decide(true);
    await done;
    assert.deepEqual(log, ['rec1: 1@10', 'snapshot src @3', 'snapshot rec @3', 'snapshot Sink @3']);
    assert.equal(polls.get('src'), 1);
    assert.deepEqual(
      [of('src')[0]!.isFinished, of('rec')[0]!.isFinished],
      [false, false],
      'stopped without end of input',
    );
    assert.equal(runtime.describeWaits()[0], "'src' (1/1) stopped before the end of its input");
    await runtime.close();
  });

  it('goes on polling when the savepoint failed, and a later stop request stops it again', async () => {
    const { runtime, log, polls } = build({ src: { polls: [emit(1), emit(2), emit(3), end] } });
    await runtime.open();
    const done = runtime.runSources();
    runtime.stopSourcesAfterBarriers(Promise.resolve(false));
    await waitTurns('the second batch', () => polls.get('src') === 2);
    let decide: (stop: boolean) => void = () => {};
    runtime.stopSourcesAfterBarriers(new Promise<boolean>((resolve) => (decide = resolve)));
    await waitTurns('the stop request seen', () =>
      runtime.describeWaits()[0]!.includes('waits for the savepoint'),
    );
    decide(true);
    await done;
    assert.deepEqual(log, ['rec1: 1@10', 'rec1: 2@20']);
  });

  it('keeps a newer stop request that came while a failed savepoint was awaited', async () => {
    const { runtime, log } = build({ src: { polls: [emit(1), emit(2), end] } });
    await runtime.open();
    const done = runtime.runSources();
    let fail: (stop: boolean) => void = () => {};
    runtime.stopSourcesAfterBarriers(new Promise<boolean>((resolve) => (fail = resolve)));
    await waitTurns('the stop request seen', () =>
      runtime.describeWaits()[0]!.includes('waits for the savepoint'),
    );
    // A second stop-with-savepoint replaces the first before the first's savepoint failed: it still holds.
    runtime.stopSourcesAfterBarriers(Promise.resolve(true));
    fail(false);
    await done;
    assert.deepEqual(log, ['rec1: 1@10']);
  });

  it('is held back while a channel it feeds is blocked, names the channel, and resumes when released', async () => {
    const blocked = pending();
    const { runtime, log, polls, of } = build(
      { a: { polls: [emit(1), emit(3), end] }, b: { polls: [blocked.poll, end] } },
      'hash',
    );
    await runtime.open();
    const done = runtime.runSources();
    // Checkpoint 4's barrier came on rec 2's channel from 'a' only: that channel is blocked, and holds 'a'.
    of('rec')[1]!.channels[0]!.barrier(barrier(4));
    assert.equal(
      runtime.describeWaits()[0],
      "'a' (1/1) waits for its next turn on the event loop",
      'not held back before its driver sees the blocked channel',
    );
    await waitTurns("'a' held back", () => runtime.describeWaits()[0]!.includes('held back'));
    assert.deepEqual(runtime.describeWaits(), [
      "'a' (1/1) is held back by blocked channel(s) channel 1 ('a' 1/1) of 'rec' (2/2) for checkpoint 4",
      "'b' (1/1) waits for its reader's pollNext() to settle",
      "'rec' (1/2) waits for records or end of input from channel 1 ('a' 1/1), channel 2 ('b' 1/1)",
      "'rec' (2/2) waits for a barrier from channel 2 ('b' 1/1) since checkpoint 4",
      "'Sink' (1/1) waits for records or end of input from channel 1 ('rec' 1/2), channel 2 ('rec' 2/2)",
    ]);
    assert.equal(polls.get('a'), 1);
    // Barrier 4 comes everywhere else too: rec 1 aligns it and passes it on, then rec 2, then the sink.
    of('rec')[0]!.channels[0]!.barrier(barrier(4));
    of('rec')[0]!.channels[1]!.barrier(barrier(4));
    assert.equal(polls.get('a'), 1, 'held by the sink now');
    of('rec')[1]!.channels[1]!.barrier(barrier(4));
    assert.equal(runtime.describeWaits()[0], "'a' (1/1) waits for its next turn on the event loop");
    // 'b' ends before the driver of 'a' resumes: released, 'a' counts as running, and no stall is reported.
    blocked.settle('end');
    await done;
    assert.equal(polls.get('a'), 3);
    assert.deepEqual(
      log.filter((line) => !line.includes('wm')),
      ['rec1: 1@10', 'rec1: 3@30', 'rec1: end', 'rec2: end'],
    );
  });

  it('reports no stall when the first source starts held back while a later one can still run', async () => {
    const { runtime, log, polls, of } = build(
      { a: { polls: [emit(1), end] }, b: { polls: [emit(2), end] } },
      'hash',
    );
    await runtime.open();
    // rec 2's channel from 'a' delivered barrier 4 before the sources started: 'a' is held back from the start,
    // and 'b', which starts after it, will deliver the barrier that releases it.
    of('rec')[1]!.channels[0]!.barrier(barrier(4));
    const done = runtime.runSources();
    assert.equal(runtime.hasFailed, false);
    of('rec')[0]!.channels[0]!.barrier(barrier(4));
    of('rec')[0]!.channels[1]!.barrier(barrier(4));
    of('rec')[1]!.channels[1]!.barrier(barrier(4));
    await done;
    assert.deepEqual([polls.get('a'), polls.get('b')], [2, 2]);
    assert.deepEqual(
      log.filter((line) => !line.includes('wm')),
      ['rec2: 2@20', 'rec1: 1@10', 'rec1: end', 'rec2: end'],
    );
  });

  it('fails with a stall when the only source is held back by a channel only it could release', async () => {
    const { runtime, polls, of } = build({ src: { polls: [emit(1), emit(2), end] } }, 'spread');
    await runtime.open();
    const done = runtime.runSources();
    // rec 1's channel from Map 1 delivered barrier 2; its channel from Map 2 needs the source, which it holds.
    of('rec')[0]!.channels[0]!.barrier(barrier(2));
    await assert.rejects(
      done,
      (e: unknown) =>
        e instanceof JobStalledError &&
        e.waits[0] ===
          "'src' (1/1) is held back by blocked channel(s) channel 1 ('Map' 1/2) of 'rec' (1/2) for checkpoint 2" &&
        e.waits.length === 6,
    );
    assert.equal(polls.get('src'), 1);
  });

  it('is held back while an asynchronous operator downstream is at capacity, and resumes on release', async () => {
    const { runtime, log, polls, of } = build({ src: { polls: [emit(1), emit(2), end] } });
    await runtime.open();
    const done = runtime.runSources();
    runtime.setBackpressure(of('rec')[0]!, true);
    assert.equal(runtime.describeWaits()[0], "'src' (1/1) waits for its next turn on the event loop");
    await waitTurns('the source held', () => runtime.describeWaits()[0]!.includes('capacity'));
    assert.deepEqual(
      runtime.describeWaits()[0],
      "'src' (1/1) is held back by an asynchronous operator at capacity",
    );
    await waitTurns('a few turns', () => false, 5).catch(() => {});
    assert.equal(polls.get('src'), 1);
    runtime.setBackpressure(of('rec')[0]!, false);
    // Released: it runs again, though its driver has not resumed yet.
    assert.equal(runtime.describeWaits()[0], "'src' (1/1) waits for its next turn on the event loop");
    await done;
    assert.deepEqual(log, ['rec1: 1@10', 'rec1: 2@20', 'rec1: wm 19', 'rec1: end']);
  });

  it("fails the job with a reader's failure, naming the source subtask unless the error is the engine's own", async () => {
    for (const [poll, expected] of [
      [
        (): PollResult => {
          throw new Error('disk gone');
        },
        "Operator 'src' (subtask 1/1) failed: disk gone",
      ],
      [
        () => Promise.reject(new Error('socket closed')),
        "Operator 'src' (subtask 1/1) failed: socket closed",
      ],
      [
        (): PollResult => {
          throw new ConfigurationError('bad topic');
        },
        'bad topic',
      ],
    ] as const) {
      const { runtime, log, of } = build({ src: { polls: [emit(1), poll] } });
      await runtime.open();
      await assert.rejects(runtime.runSources(), (e: unknown) => {
        assert.equal((e as Error).message, expected);
        assert.equal(e instanceof JobExecutionError, expected.startsWith('Operator'));
        return true;
      });
      assert.deepEqual(log, ['rec1: 1@10']);
      assert.deepEqual(runtime.describeWaits()[0], "'src' (1/1) stopped before the end of its input");
      assert.equal(of('src')[0]!.isFinished, false);
    }
  });

  it('polls no more once the job failed while a poll was pending', async () => {
    const second = pending(2);
    const { runtime, log, polls } = build({ src: { polls: [emit(1), second.poll, end] } });
    await runtime.open();
    const done = runtime.runSources();
    await waitTurns('the second poll', () => polls.get('src') === 2);
    const reason = new Error('cancelled');
    runtime.cancel(reason);
    await assert.rejects(done, (e: unknown) => e === reason);
    second.settle('more');
    await waitTurns('a few turns', () => false, 5).catch(() => {});
    assert.equal(polls.get('src'), 2);
    assert.deepEqual(log, ['rec1: 1@10', 'rec1: 2@20']);
  });

  it('only passes the end of stream on when it had finished before the restored checkpoint', async () => {
    const snapshot = {
      version: 1,
      checkpointId: 9,
      operators: {
        src: { parallelism: 1, keyedState: [], timers: [], operatorState: [undefined], finished: [true] },
      },
    } as unknown as JobSnapshot;
    const { runtime, log, polls, of } = build({ src: { polls: [emit(1), end] } }, 'forward', {
      restoreFrom: snapshot,
    });
    assert.equal(runtime.restoredCheckpointId, 9);
    await runtime.open();
    await runtime.runSources();
    assert.deepEqual(log, ['rec1: end']);
    assert.equal(polls.get('src'), undefined);
    assert.equal(of('src')[0]!.isFinished, true);
  });
});

describe('JobRuntime stalls', () => {
  it('counts a finished source out, and fails when the one left is held back by a channel only it could release', async () => {
    const { runtime } = build(
      { a: { polls: [emit(1), emit(2), end] }, b: { polls: [end], bounded: true } },
      'spread',
    );
    await runtime.open();
    const done = runtime.runSources();
    // b ended at its first poll; a polled once and waits for its next turn.
    runtime
      .subtasksOf(runtime.graph.nodes.find((n) => n.name === 'rec')!)[0]!
      .channels[0]!.barrier(barrier(6));
    const stalled = assert.rejects(
      done,
      (e: unknown) =>
        e instanceof JobStalledError &&
        e.waits[0] ===
          "'a' (1/1) is held back by blocked channel(s) channel 1 ('Map' 1/2) of 'rec' (1/2) for checkpoint 6",
    );
    await waitTurns('the stall', () => runtime.hasFailed);
    await stalled;
  });

  it('reports no stall while the blocked source is also held by an asynchronous operator, which will release it', async () => {
    const b = pending();
    const { runtime, of } = build(
      { a: { polls: [emit(1), emit(2), end] }, b: { polls: [b.poll, end], bounded: true } },
      'spread',
    );
    await runtime.open();
    const done = runtime.runSources();
    of('rec')[0]!.channels[0]!.barrier(barrier(6));
    await waitTurns("'a' held back", () => runtime.describeWaits()[0]!.includes('blocked channel'));
    runtime.setBackpressure(of('rec')[1]!, true);
    // b ends: a is the only source left, blocked, but also held by an operator whose calls will complete.
    b.settle('end');
    await waitTurns("b's end", () => of('b')[0]!.isFinished);
    assert.equal(runtime.hasFailed, false);
    const reason = new Error('cancelled');
    runtime.cancel(reason);
    await assert.rejects(done, (e: unknown) => e === reason);
  });
});

describe('JobRuntime driving bounded sources', () => {
  it('polls its subtasks in turn, last first, one batch each per round and one round per turn', async () => {
    const { runtime, log, polls } = build({
      src: {
        polls: [
          [emit(1), emit(3), end],
          [emit(2), emit(4), end],
        ],
        bounded: true,
      },
    });
    await runtime.open();
    const done = runtime.runSources();
    assert.deepEqual(log, ['rec1: 2@20', 'rec1: 1@10']);
    let seen: (number | undefined)[] = [];
    setImmediate(() => (seen = [polls.get('src 1'), polls.get('src 2')]));
    await done;
    assert.deepEqual(seen, [2, 2], 'one round per turn');
    assert.deepEqual(log, [
      'rec1: 2@20',
      'rec1: 1@10',
      'rec1: 4@40',
      'rec1: 3@30',
      'rec1: wm 29',
      'rec1: wm max',
      'rec1: end',
    ]);
  });

  it("waits for a subtask's asynchronous poll before the next subtask polls", async () => {
    const first = pending(2);
    const { runtime, log, polls } = build({
      src: {
        polls: [
          [emit(1), end],
          [first.poll, end],
        ],
        bounded: true,
      },
    });
    await runtime.open();
    const done = runtime.runSources();
    await waitTurns('a few turns', () => false, 5).catch(() => {});
    assert.deepEqual([polls.get('src 1'), polls.get('src 2')], [undefined, 1]);
    assert.deepEqual(runtime.describeWaits().slice(0, 2), [
      "'src' (1/2) waits for its next turn on the event loop",
      "'src' (2/2) waits for its reader's pollNext() to settle",
    ]);
    first.settle('more');
    await done;
    assert.deepEqual(log.slice(0, 2), ['rec1: 2@20', 'rec1: 1@10']);
  });

  it('stops every subtask of the group after its barriers once the savepoint completed', async () => {
    for (const completed of [true, false]) {
      const { runtime, log } = build(
        {
          src: {
            polls: [
              [emit(1), end],
              [emit(2), end],
            ],
            bounded: true,
          },
        },
        'forward',
        {
          onSubtaskSnapshot: (subtask, b) =>
            log.push(`snapshot ${subtask.node.name} ${subtask.index + 1} @${b.id}`),
        },
      );
      await runtime.open();
      runtime.triggerCheckpoint(barrier(8, 'savepoint'));
      let decide: (stop: boolean) => void = () => {};
      runtime.stopSourcesAfterBarriers(new Promise<boolean>((resolve) => (decide = resolve)));
      const done = runtime.runSources();
      // Subtask 2 had its turn first; subtask 1 injected its barrier without waiting for its turn.
      assert.deepEqual(log.slice(0, 2), ['snapshot src 2 @8', 'snapshot src 1 @8']);
      assert.deepEqual(runtime.describeWaits().slice(0, 2), [
        "'src' (1/2) waits for the savepoint to complete before it stops",
        "'src' (2/2) waits for the savepoint to complete before it stops",
      ]);
      decide(completed);
      await done;
      assert.deepEqual(
        log.filter((line) => line.startsWith('rec')),
        completed ? [] : ['rec1: 2@20', 'rec1: 1@10', 'rec1: wm 9', 'rec1: wm max', 'rec1: end'],
      );
      assert.deepEqual(
        runtime.describeWaits().slice(0, 2),
        completed
          ? [
              "'src' (1/2) stopped before the end of its input",
              "'src' (2/2) stopped before the end of its input",
            ]
          : [],
      );
    }
  });

  it('keeps a newer stop request that came while a failed savepoint was awaited', async () => {
    const { runtime, log } = build({ src: { polls: [emit(1), emit(2), end], bounded: true } });
    await runtime.open();
    const done = runtime.runSources();
    let fail: (stop: boolean) => void = () => {};
    runtime.stopSourcesAfterBarriers(new Promise<boolean>((resolve) => (fail = resolve)));
    await waitTurns('the stop request seen', () =>
      runtime.describeWaits()[0]!.includes('waits for the savepoint'),
    );
    runtime.stopSourcesAfterBarriers(Promise.resolve(true));
    fail(false);
    await done;
    assert.deepEqual(log, ['rec1: 1@10']);
  });

  it('marks an idle output active again for its final watermark', async () => {
    const idle: Poll = (out) => {
      out.markIdle!(true);
      return 'end';
    };
    const { runtime, log } = build({ src: { polls: [emit(1), idle], bounded: true } });
    await run(runtime);
    assert.deepEqual(log, [
      'rec1: 1@10',
      'rec1: idle',
      'rec1: wm 9',
      'rec1: active',
      'rec1: wm max',
      'rec1: end',
    ]);
  });

  it('only passes the end of stream on when it had finished before the restored checkpoint', async () => {
    const snapshot = {
      version: 1,
      operators: {
        src: { parallelism: 1, keyedState: [], timers: [], operatorState: [undefined], finished: [true] },
      },
    } as unknown as JobSnapshot;
    const { runtime, log, polls } = build({ src: { polls: [emit(1), end], bounded: true } }, 'forward', {
      restoreFrom: snapshot,
    });
    await run(runtime);
    assert.deepEqual(log, ['rec1: wm max', 'rec1: end']);
    assert.equal(polls.get('src'), undefined);
  });

  it("fails the job with a reader's failure, and says the source stopped", async () => {
    const { runtime, log } = build({
      src: {
        polls: [
          emit(1),
          () => {
            throw new Error('gone');
          },
        ],
        bounded: true,
      },
    });
    await runtime.open();
    await assert.rejects(
      runtime.runSources(),
      (e: unknown) =>
        e instanceof JobExecutionError && e.message === "Operator 'src' (subtask 1/1) failed: gone",
    );
    assert.deepEqual(log, ['rec1: 1@10']);
    assert.equal(runtime.describeWaits()[0], "'src' (1/1) stopped before the end of its input");
  });

  it('ends nothing once the job failed while its last poll was pending', async () => {
    const last = pending(2);
    const { runtime, log } = build({ src: { polls: [emit(1), last.poll], bounded: true } });
    await runtime.open();
    const done = runtime.runSources();
    await waitTurns('the last poll', () => runtime.describeWaits()[0]!.includes('pollNext'));
    const reason = new Error('cancelled');
    runtime.cancel(reason);
    last.settle('end');
    await assert.rejects(done, (e: unknown) => e === reason);
    assert.deepEqual(log, ['rec1: 1@10', 'rec1: 2@20']);
  });

  it('waits while every subtask left is held back by a blocked channel, and goes on once one is released', async () => {
    const b = pending();
    const { runtime, log, polls, of } = build(
      { a: { polls: [emit(1), emit(3), end], bounded: true }, b: { polls: [b.poll, end] } },
      'hash',
    );
    await runtime.open();
    // Checkpoint 4's barrier came on rec 2's channel from 'a' before 'a' had its first turn.
    of('rec')[1]!.channels[0]!.barrier(barrier(4));
    const done = runtime.runSources();
    await waitTurns('a few turns', () => false, 5).catch(() => {});
    assert.equal(polls.get('a'), undefined);
    assert.equal(
      runtime.describeWaits()[0],
      "'a' (1/1) is held back by blocked channel(s) channel 1 ('a' 1/1) of 'rec' (2/2) for checkpoint 4",
    );
    for (const [rec, channel] of [
      [0, 0],
      [0, 1],
      [1, 1],
    ] as const) {
      of('rec')[rec]!.channels[channel]!.barrier(barrier(4));
    }
    await waitTurns("'a' done", () => polls.get('a') === 3);
    b.settle('end');
    await done;
    assert.deepEqual(
      log.filter((line) => !line.includes('wm')),
      ['rec1: 1@10', 'rec1: 3@30', 'rec1: end', 'rec2: end'],
    );
  });
});

describe('JobRuntime ending a source', () => {
  /** A generator whose periodic emit (at the end of input) emits 5, or fails when told to. */
  const lastEmit = (fails: boolean) =>
    WatermarkStrategy.forGenerator<number>(() => ({
      onEvent() {},
      onPeriodicEmit(output) {
        if (fails) throw new Error('no last watermark');
        output.emitWatermark(5);
      },
    }));

  it('runs the last periodic emit at the end of input, but not for a source restored as finished', async () => {
    const fresh = build({ src: { polls: [end], bounded: true } }, 'forward', {}, lastEmit(false));
    await run(fresh.runtime);
    assert.deepEqual(fresh.log, ['rec1: wm 5', 'rec1: wm max', 'rec1: end']);
    const snapshot = {
      version: 1,
      operators: {
        src: { parallelism: 1, keyedState: [], timers: [], operatorState: [undefined], finished: [true] },
      },
    } as unknown as JobSnapshot;
    const restored = build(
      { src: { polls: [end], bounded: true } },
      'forward',
      { restoreFrom: snapshot },
      lastEmit(false),
    );
    await run(restored.runtime);
    assert.deepEqual(restored.log, ['rec1: wm max', 'rec1: end']);
  });

  it('fails the job naming the source when its end fails, and says it stopped', async () => {
    const { runtime, log } = build({ src: { polls: [emit(1), end] } }, 'forward', {}, lastEmit(true));
    await runtime.open();
    await assert.rejects(
      runtime.runSources(),
      (e: unknown) =>
        e instanceof JobExecutionError &&
        e.message === "Operator 'src' (subtask 1/1) failed: no last watermark",
    );
    assert.deepEqual(log, ['rec1: 1@10']);
    assert.equal(runtime.describeWaits()[0], "'src' (1/1) stopped before the end of its input");
  });
});
