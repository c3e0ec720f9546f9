// JobRuntime, driven directly: how it wires a graph (routers, two-input operators, side outputs, channels to and from
// other threads), what a restore checks and hands each subtask, snapshots, and the life cycle around them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CollectSink,
  ConfigurationError,
  ManualClock,
  OutputTag,
  StreamExecutionEnvironment,
} from '../index.ts';
import { MAX_WATERMARK } from '../core/time-domain.ts';
import type { Logger } from '../core/logger.ts';
import type { StreamEdge, StreamNode } from '../graph/stream-graph.ts';
import {
  AbstractStreamOperator,
  type OneInputStreamOperator,
  type TwoInputStreamOperator,
} from '../operators/stream-operator.ts';
import type { OperatorStateDistribution } from '../operators/operator-state-distribution.ts';
import { HeapStateBackend } from '../state/state-backend.ts';
import { MetricRegistry } from '../metrics/metric-registry.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import type { InputChannel } from './input-channel.ts';
import { FIRST_SAMPLE_DELAY_MS } from './busy-time-tracker.ts';
import { JobRuntime, type JobRuntimeOptions } from './job-runtime.ts';
import type { JobSnapshot } from './job-snapshot.ts';
import type { OutboundChannel } from './outbound-channel.ts';
import type { ChannelWriter } from './record-router.ts';
import type { Subtask } from './subtask.ts';
import type { ThreadExchange } from './thread-exchange.ts';
import { waitTurns } from '../../test/support/wait-for.ts';
import { CEP } from '../api/cep.ts';
import { Pattern } from '../cep/pattern/pattern.ts';
import { DEFAULT_PARTIAL_MATCH_QUERY } from '../cep/operator/partial-match-snapshot.ts';
import { JobStalledError } from '../core/errors.ts';

const barrier = (id: number): CheckpointBarrier => ({ id, timestamp: 0, kind: 'checkpoint' });

const nameOf = (s: Subtask): string => `${s.node.name} ${s.index + 1}/${s.node.parallelism}`;

/** Logs what reaches each subtask (`<name><subtask>: value`, `... end`) and what the runtime asks of it. */
class Probe
  extends AbstractStreamOperator<unknown>
  implements OneInputStreamOperator<unknown, unknown>, TwoInputStreamOperator<unknown, unknown, unknown>
{
  constructor(
    private readonly name: string,
    private readonly log: string[],
    private readonly state: (subtask: number) => unknown = () => undefined,
    private readonly distribution: OperatorStateDistribution = 'per-subtask',
  ) {
    super();
  }
  private get me(): string {
    return `${this.name}${this.context?.subtaskIndex === undefined ? '' : this.context.subtaskIndex + 1}`;
  }
  override open(): void {
    this.log.push(`${this.me}: open`);
  }
  processElement(value: unknown, timestamp: number): void {
    this.log.push(`${this.me}: ${String(value)}`);
    this.output.collect(value, timestamp);
  }
  processElement1(value: unknown, timestamp: number): void {
    this.log.push(`${this.me}: first ${String(value)}`);
    this.output.collect(value, timestamp);
  }
  processElement2(value: unknown, timestamp: number): void {
    this.log.push(`${this.me}: second ${String(value)}`);
    this.output.collect(value, timestamp);
  }
  override endInput(): void {
    this.log.push(`${this.me}: end`);
  }
  override prepareKeyedStateSnapshot(): void {
    this.log.push(`${this.me}: prepare keyed snapshot`);
  }
  override snapshotOperatorState(): unknown {
    return this.state(this.context.subtaskIndex);
  }
  override restoreOperatorState(state: unknown): void {
    this.log.push(`${this.name}: restore ${JSON.stringify(state)}`);
  }
  override get operatorStateDistribution(): OperatorStateDistribution {
    return this.distribution;
  }
}

/**
 * Runs `body` with `performance.now()` answering `read()` (the clock of barrier alignment and of the worker-mode turn
 * budget), then gives the real clock back.
 */
async function onMockedClock(read: () => number, body: () => void | Promise<void>): Promise<void> {
  Object.defineProperty(performance, 'now', { value: read, configurable: true, writable: true });
  try {
    await body();
  } finally {
    delete (performance as { now?: unknown }).now;
  }
}

async function run(runtime: JobRuntime): Promise<void> {
  await runtime.open();
  await runtime.runSources();
  await runtime.close();
}

function nodeNamed(runtime: JobRuntime, name: string): StreamNode {
  return runtime.graph.nodes.find((n) => n.name === name)!;
}

describe('JobRuntime wiring', () => {
  it('sends every record to every subtask over a broadcast edge, and to the first over a global one', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 3 });
    const log: string[] = [];
    const input = env.fromElements(1, 2).setParallelism(1);
    input
      .broadcast()
      .transform('all', () => new Probe('all', log))
      .sinkTo(new CollectSink());
    input
      .global()
      .transform('first', () => new Probe('first', log))
      .sinkTo(new CollectSink());
    await run(new JobRuntime(env.buildGraph(), { clock: new ManualClock() }));
    assert.deepEqual(log.filter((line) => !line.endsWith('open') && !line.endsWith('end')).sort(), [
      'all1: 1',
      'all1: 2',
      'all2: 1',
      'all2: 2',
      'all3: 1',
      'all3: 2',
      'first1: 1',
      'first1: 2',
    ]);
  });

  it('hands each input of a two-input operator to its own entry point, and refuses an operator without one', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const log: string[] = [];
    const a = env.fromElements('a');
    const b = env.fromElements('b');
    a.connect(b)
      .transform('both', () => new Probe('both', log))
      .sinkTo(new CollectSink());
    await run(new JobRuntime(env.buildGraph(), { clock: new ManualClock() }));
    assert.deepEqual(log.filter((line) => line.includes('first') || line.includes('second')).sort(), [
      'both1: first a',
      'both1: second b',
    ]);

    const missing = (input: 1 | 2) => {
      const e = StreamExecutionEnvironment.create({ parallelism: 1 });
      const probe = new Probe('x', []) as Partial<Probe>;
      Object.defineProperty(probe, input === 1 ? 'processElement1' : 'processElement2', { value: undefined });
      e.fromElements(1)
        .connect(e.fromElements(2))
        .transform('half', () => probe as Probe)
        .sinkTo(new CollectSink());
      return e.buildGraph();
    };
    for (const input of [1, 2] as const) {
      assert.throws(
        () => new JobRuntime(missing(input), { clock: new ManualClock() }),
        (e: unknown) =>
          e instanceof ConfigurationError && e.message === `Operator 'half' cannot take input ${input}`,
      );
    }
    const one = StreamExecutionEnvironment.create({ parallelism: 1 });
    one
      .fromElements(1)
      .transform('none', () => {
        const probe = new Probe('none', []);
        Object.defineProperty(probe, 'processElement', { value: undefined });
        return probe;
      })
      .sinkTo(new CollectSink());
    assert.throws(
      () => new JobRuntime(one.buildGraph(), { clock: new ManualClock() }),
      (e: unknown) => e instanceof ConfigurationError && e.message === "Operator 'none' cannot take input 1",
    );
  });

  it('routes side outputs only to the edges of their tag, and hands them to the side tap', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const negatives = new OutputTag<number>('negatives', 'number');
    const main = new CollectSink<number>();
    const side = new CollectSink<number>();
    const split = env.fromElements(1, -2, 3).process<number>({
      processElement(n, ctx, out) {
        if (n < 0) ctx.output(negatives, n);
        else out.collect(n);
      },
    });
    split.sinkTo(main);
    split.getSideOutput(negatives).sinkTo(side);
    const tapped: string[] = [];
    const runtime = new JobRuntime(env.buildGraph(), {
      clock: new ManualClock(),
      sideTap: (tag, value) => tapped.push(`${tag} ${String(value)}`),
    });
    for (const list of runtime.subtasks.values()) {
      for (const subtask of list) assert.equal(subtask.output.sideTap !== undefined, true);
    }
    await run(runtime);
    assert.deepEqual(main.values, [1, 3]);
    assert.deepEqual(side.values, [-2]);
    assert.deepEqual(tapped, ['negatives -2']);
    const plain = new JobRuntime(env.buildGraph([]), { clock: new ManualClock() });
    assert.equal([...plain.subtasks.values()].flat()[0]!.output.sideTap, undefined);
  });

  it('tells each channel which source subtasks feed it, through every operator between them', () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const a = env.fromElements(1).uid('a').name('a').setParallelism(1);
    const b = env.fromElements(2).uid('b').name('b');
    a.union(b)
      .map((x: number) => x)
      .keyBy((x: number) => x)
      .transform('rec', () => new Probe('rec', []))
      .sinkTo(new CollectSink());
    const runtime = new JobRuntime(env.buildGraph(), { clock: new ManualClock() });
    const sources = (name: string, index: number) => {
      const subtask = runtime.subtasksOf(nodeNamed(runtime, name))[index]!;
      return subtask.channels.map((c) => `${c.describe()}: ${c.sources.map(nameOf).join(', ')}`);
    };
    assert.deepEqual(sources('Map', 1), ["channel 1 ('a' 1/1): a 1/1", "channel 2 ('b' 1/1): b 1/1"]);
    assert.deepEqual(sources('rec', 0), [
      "channel 1 ('Map' 1/2): a 1/1, b 1/1",
      "channel 2 ('Map' 2/2): a 1/1, b 1/1",
    ]);
  });

  it('hands records straight to an input whose one channel never blocks, and through the channel of one that aligns barriers', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const log: string[] = [];
    const a = env.fromElements(1).name('a');
    const b = env.fromElements(2).name('b');
    a.transform('chained', () => new Probe('chained', log)).sinkTo(new CollectSink());
    a.union(b)
      .transform('merged', () => new Probe('merged', log))
      .sinkTo(new CollectSink());
    a.keyBy((x: number) => x)
      .transform('keyed', () => new Probe('keyed', log))
      .sinkTo(new CollectSink());
    const runtime = new JobRuntime(env.buildGraph(), { clock: new ManualClock() });
    await runtime.open();
    const subtask = (name: string) => runtime.subtasksOf(nodeNamed(runtime, name))[0]!;
    // A record taking a channel of 'chained' or 'keyed' would fail here: their records must skip it.
    for (const name of ['chained', 'keyed']) {
      const channel = subtask(name).channels[0]!;
      channel.process = channel.processKeyed = () => assert.fail(`a record took the channel of '${name}'`);
    }
    const merged = subtask('merged');
    assert.equal(merged.channels.length, 2);
    merged.channels[0]!.block();
    subtask('a').output.collect('x', 1);
    assert.deepEqual(
      log.filter((line) => !line.endsWith('open')),
      ['chained1: x', 'keyed1: x'],
    );
    // The blocked channel of 'merged' holds the record back until it is released.
    assert.equal(merged.channels[0]!.bufferedEvents, 1);
    merged.channels[0]!.release();
    assert.deepEqual(
      log.filter((line) => !line.endsWith('open')),
      ['chained1: x', 'keyed1: x', 'merged1: x'],
    );
  });
});

/** Records what JobRuntime asks of the exchange to other threads. */
class RecordingExchange {
  readonly log: string[] = [];
  private readonly writers = new Map<object, string>();
  openInbound(edge: StreamEdge, p: number, c: number, host: number, channel: InputChannel): void {
    this.log.push(
      `in ${edge.source.name} ${p + 1} → ${edge.target.name} ${c + 1} from ${host}: ${channel.describe()}`,
    );
  }
  openOutbound(edge: StreamEdge, p: number, c: number, host: number): OutboundChannel {
    const name = `${edge.source.name} ${p + 1} → ${edge.target.name} ${c + 1} on ${host}`;
    this.log.push(`out ${name}`);
    const log = this.log;
    const writer: ChannelWriter = {
      process: (value) => log.push(`${name}: ${String(value)}`),
      processKeyed: (value) => log.push(`${name}: ${String(value)}`),
      watermark: (w) => log.push(`${name}: wm ${w === MAX_WATERMARK ? 'max' : w}`),
      status: () => {},
      endOfInput: () => log.push(`${name}: end`),
      barrier: (b) => log.push(`${name}: barrier ${b.id}`),
    };
    this.writers.set(writer, name);
    return writer as unknown as OutboundChannel;
  }
  withhold(feeders: readonly InputChannel[], held: boolean): void {
    this.log.push(`${held ? 'withhold' : 'release'} ${feeders.map((c) => c.describe()).join(', ')}`);
  }
  wireCongestion(
    outbound: OutboundChannel,
    sources: readonly Subtask[],
    feeders: readonly InputChannel[],
  ): void {
    this.log.push(
      `congestion of ${this.writers.get(outbound)}: sources [${sources.map(nameOf).join(', ')}], feeders [${feeders.map((c) => c.describe()).join(', ')}]`,
    );
  }
}

describe('JobRuntime with a placement (its share of the subtasks, the rest reached through the exchange)', () => {
  /** Elements (1) → rebalance → Map (3) → hash → rec (3) → Sink (3); subtask 1 of each on host 1, the rest on 2. */
  function placed(host: number, options: Partial<JobRuntimeOptions> = {}) {
    const env = StreamExecutionEnvironment.create({ parallelism: 3 });
    const log: string[] = [];
    env
      .fromElements(1, 2, 3, 4)
      .uid('src')
      .map((x: number) => x)
      .uid('map')
      .keyBy((x: number) => x % 2)
      .transform('rec', () => new Probe('rec', log))
      .uid('rec')
      .sinkTo(new CollectSink());
    const exchange = new RecordingExchange();
    const runtime = new JobRuntime(env.buildGraph(), {
      clock: new ManualClock(),
      placement: {
        host,
        hostOf: (_node, index) => (index === 0 ? 1 : 2),
        exchange: exchange as unknown as ThreadExchange,
      },
      ...options,
    });
    const of = (name: string) => runtime.subtasksOf(nodeNamed(runtime, name));
    return { runtime, exchange, log, of };
  }

  it('opens a channel to or from another thread for every pair of subtasks that are not both here', () => {
    const { exchange, of } = placed(2);
    assert.deepEqual(
      [of('Elements').length, of('Map').map((s) => s.index), of('rec').map((s) => s.index)],
      [0, [1, 2], [1, 2]],
    );
    assert.deepEqual(exchange.log, [
      "in Elements 1 → Map 2 from 1: channel 1 ('Elements' 1/1)",
      "in Elements 1 → Map 3 from 1: channel 1 ('Elements' 1/1)",
      "in Map 1 → rec 2 from 1: channel 1 ('Map' 1/3)",
      "in Map 1 → rec 3 from 1: channel 1 ('Map' 1/3)",
      'out Map 2 → rec 1 on 1',
      'out Map 3 → rec 1 on 1',
      // Congestion towards rec 1 holds back what feeds Map 2 and Map 3 here: no source, the channels from Elements.
      "congestion of Map 2 → rec 1 on 1: sources [], feeders [channel 1 ('Elements' 1/1)]",
      "congestion of Map 3 → rec 1 on 1: sources [], feeders [channel 1 ('Elements' 1/1)]",
    ]);
    // A channel fed from another thread holds back no source here.
    assert.deepEqual(
      of('rec')[0]!.channels.map((c) => c.sources.length),
      [0, 0, 0],
    );
  });

  it('holds the source here and withholds the credits of channels from other threads while an operator is at capacity', () => {
    const { runtime, exchange, of } = placed(2);
    exchange.log.length = 0;
    runtime.setBackpressure(of('rec')[0]!, true);
    runtime.setBackpressure(of('rec')[0]!, false);
    assert.deepEqual(exchange.log, [
      "withhold channel 1 ('Map' 1/3), channel 1 ('Elements' 1/1), channel 1 ('Elements' 1/1)",
      "release channel 1 ('Map' 1/3), channel 1 ('Elements' 1/1), channel 1 ('Elements' 1/1)",
    ]);
    const one = placed(1);
    one.exchange.log.length = 0;
    one.runtime.setBackpressure(one.of('rec')[0]!, true);
    assert.equal(one.of('Elements')[0]!.isHeldBack, true);
    assert.equal(one.of('Map')[0]!.isHeldBack, false, 'only sources are held');
    assert.deepEqual(one.exchange.log, ["withhold channel 2 ('Map' 2/3), channel 3 ('Map' 3/3)"]);
  });

  it('wires congestion of each channel to another thread to the sources that feed it here', () => {
    const { exchange } = placed(1);
    assert.deepEqual(
      exchange.log.filter((line) => line.startsWith('congestion')),
      [
        'congestion of Elements 1 → Map 2 on 2: sources [Elements 1/1], feeders []',
        'congestion of Elements 1 → Map 3 on 2: sources [Elements 1/1], feeders []',
        'congestion of Map 1 → rec 2 on 2: sources [Elements 1/1], feeders []',
        'congestion of Map 1 → rec 3 on 2: sources [Elements 1/1], feeders []',
      ],
    );
  });

  it('reports no stall while a barrier from another thread may still release its source', async () => {
    const { runtime, exchange, of } = placed(1);
    await runtime.open();
    exchange.log.length = 0;
    // rec 1 waits for barrier 5 from Map 2 and Map 3, on host 2: the source is held back until they come.
    of('rec')[0]!.channels[0]!.barrier(barrier(5));
    const done = runtime.runSources();
    await waitTurns('the source held back', () => runtime.describeWaits()[0]!.includes('held back'));
    assert.equal(runtime.hasFailed, false);
    of('rec')[0]!.channels[1]!.barrier(barrier(5));
    of('rec')[0]!.channels[2]!.barrier(barrier(5));
    await done;
    assert.equal(runtime.hasFailed, false);
    assert.deepEqual(
      exchange.log.filter((line) => line.startsWith('Elements 1 → Map 2')),
      ['Elements 1 → Map 2 on 2: 2', 'Elements 1 → Map 2 on 2: wm max', 'Elements 1 → Map 2 on 2: end'],
    );
  });

  it('restores only the subtasks it runs, and leaves out the nodes it runs none of', () => {
    const log: string[] = [];
    const snapshot = {
      version: 1,
      operators: {
        src: { parallelism: 1, keyedState: [], timers: [], operatorState: [['split']] },
        rec: { parallelism: 3, keyedState: [], timers: [], operatorState: ['r1', 'r2', 'r3'] },
      },
    } as unknown as JobSnapshot;
    const env = StreamExecutionEnvironment.create({ parallelism: 3 });
    env
      .fromElements(1)
      .uid('src')
      .transform('rec', () => new Probe('rec', log))
      .uid('rec')
      .sinkTo(new CollectSink());
    new JobRuntime(env.buildGraph(), {
      clock: new ManualClock(),
      restoreFrom: snapshot,
      placement: {
        host: 2,
        hostOf: (_node, index) => (index === 0 ? 1 : 2),
        exchange: new RecordingExchange() as unknown as ThreadExchange,
      },
    });
    assert.deepEqual(log, ['rec: restore "r2"', 'rec: restore "r3"']);
  });
});

describe('JobRuntime restore', () => {
  /** Elements (1) → 'probe' (`parallelism`, operator state kept as `distribution`) → Sink. */
  function probeJob(
    parallelism: number,
    snapshot: unknown,
    distribution: OperatorStateDistribution = 'per-subtask',
  ) {
    const env = StreamExecutionEnvironment.create({ parallelism });
    const log: string[] = [];
    env
      .fromElements(1, 2)
      .uid('src')
      .setParallelism(1)
      .transform('probe', () => new Probe('probe', log, (i) => `state ${i + 1}`, distribution))
      .uid('probe')
      .sinkTo(new CollectSink());
    const runtime = new JobRuntime(env.buildGraph(), {
      clock: new ManualClock(),
      restoreFrom: snapshot as JobSnapshot,
    });
    const of = (name: string) => runtime.subtasksOf(nodeNamed(runtime, name));
    return { runtime, log, of };
  }
  const operator = (parallelism: number, operatorState: unknown[], finished?: boolean[]) => ({
    parallelism,
    keyedState: [],
    timers: [],
    operatorState,
    ...(finished !== undefined ? { finished } : {}),
  });
  const snapshotOf = (probe: object) => ({ version: 1, operators: { probe } });

  it('refuses operator state kept per subtask at another parallelism, unless every old subtask had finished', () => {
    assert.throws(
      () => probeJob(3, snapshotOf(operator(2, ['a', undefined]))),
      (e: unknown) =>
        e instanceof ConfigurationError &&
        e.message ===
          "Operator 'probe' (uid 'probe') cannot be restored at parallelism 3 from a snapshot taken at parallelism 2: its operator state is kept per subtask and cannot be reassigned exactly; restore it at parallelism 2",
    );
    // Every old subtask finished: the new ones only pass the end of stream on.
    const done = probeJob(3, snapshotOf(operator(2, ['a', 'b'], [true, true])));
    assert.deepEqual(
      done.of('probe').map((s) => s.wasRestoredFinished),
      [true, true, true],
    );
    assert.deepEqual(done.log, ['probe: restore "a"', 'probe: restore "b"']);
    // Without state to place, any parallelism will do; and so will state that is redistributed.
    assert.deepEqual(probeJob(3, snapshotOf(operator(2, [undefined, undefined]))).log, []);
    assert.deepEqual(probeJob(3, snapshotOf(operator(2, ['a', 'b'])), 'redistribute').log, [
      'probe: restore ["a"]',
      'probe: restore ["b"]',
    ]);
  });

  it('marks as finished only the subtasks that had finished, at the same parallelism', async () => {
    const same = probeJob(2, snapshotOf(operator(2, ['a', 'b'], [true, false])));
    assert.deepEqual(
      same.of('probe').map((s) => s.wasRestoredFinished),
      [true, false],
    );
    assert.deepEqual(same.log, ['probe: restore "a"', 'probe: restore "b"']);
    // At another parallelism, one unfinished old subtask leaves them all to run again.
    const other = probeJob(3, snapshotOf(operator(2, [undefined, undefined], [true, false])));
    assert.deepEqual(
      other.of('probe').map((s) => s.wasRestoredFinished),
      [false, false, false],
    );
    // An empty list says nothing finished.
    const none = probeJob(1, snapshotOf(operator(1, [undefined], [])));
    assert.deepEqual(
      none.of('probe').map((s) => s.wasRestoredFinished),
      [false],
    );
    await run(none.runtime);
    assert.deepEqual(
      none.log.filter((l) => !l.endsWith('open')),
      ['probe1: 1', 'probe1: 2', 'probe1: end'],
    );
  });

  it('restores a whole snapshot of the job: state of operators that are not keyed included', async () => {
    const first = probeJob(2, undefined);
    await run(first.runtime);
    const snapshot = first.runtime.snapshot();
    assert.deepEqual(snapshot.operators.probe, {
      parallelism: 2,
      keyedState: [],
      timers: [],
      operatorState: ['state 1', 'state 2'],
    });
    assert.deepEqual(
      first.log.filter((l) => l.includes('prepare')),
      [],
      'no keyed state to prepare',
    );
    const second = probeJob(2, snapshot);
    assert.deepEqual(second.log, ['probe: restore "state 1"', 'probe: restore "state 2"']);
  });

  it('refuses operator state of an operator it lacks even when some old subtask had none', () => {
    assert.throws(
      () => probeJob(1, { version: 1, operators: { ghost: operator(2, [undefined, 'x']) } }),
      (e: unknown) => e instanceof ConfigurationError && e.message.includes("'ghost'"),
    );
  });

  it('snapshots the keyed state and timers of keyed operators, preparing only those', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const log: string[] = [];
    env
      .fromElements(1)
      .uid('src')
      .keyBy((x: number) => x)
      .process<number>({
        processElement(x, ctx, out) {
          ctx.timerService().registerEventTimeTimer(100 + x);
          out.collect(x);
        },
      })
      .uid('timed')
      .keyBy((x: number) => x)
      .transform('keyed', () => new Probe('keyed', log))
      .uid('keyed')
      .transform('plain', () => new Probe('plain', log))
      .uid('plain')
      .sinkTo(new CollectSink());
    const runtime = new JobRuntime(env.buildGraph(), { clock: new ManualClock() });
    await runtime.open();
    const timed = runtime.subtasksOf(runtime.graph.nodes.find((n) => n.uid === 'timed')!)[0]!;
    timed.channels[0]!.process(1, 0);
    log.length = 0;
    const snapshot = runtime.snapshot();
    assert.equal(snapshot.operators.timed!.timers.length, 1, 'the key group of key 1 holds a timer');
    assert.deepEqual([snapshot.operators.plain!.keyedState, snapshot.operators.plain!.timers], [[], []]);
    assert.deepEqual(snapshot.operators.plain!.operatorState, [undefined]);
    assert.deepEqual(log, ['keyed1: prepare keyed snapshot']);
  });
});

describe('JobRuntime life cycle', () => {
  function simple(options: Partial<JobRuntimeOptions> = {}) {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const log: string[] = [];
    env
      .fromElements(1)
      .transform('a', () => new Probe('a', log))
      .transform('b', () => new Probe('b', log))
      .sinkTo(new CollectSink());
    const runtime = new JobRuntime(env.buildGraph(), { clock: new ManualClock(), ...options });
    return { runtime, log };
  }

  it('opens consumers before their producers, and closes without failure when none fails', async () => {
    const { runtime, log } = simple();
    await runtime.open();
    assert.deepEqual(log, ['b1: open', 'a1: open']);
    await assert.doesNotReject(runtime.close());
  });

  it('disposes the keyed state backends of its keyed subtasks', () => {
    const heap = new HeapStateBackend();
    const disposed: string[] = [];
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    env
      .fromElements(1)
      .keyBy((x: number) => x)
      .transform('keyed', () => new Probe('keyed', []))
      .map((x) => x)
      .sinkTo(new CollectSink());
    const runtime = new JobRuntime(env.buildGraph(), {
      clock: new ManualClock(),
      stateBackend: {
        name: 'disposing',
        createKeyedStateBackend(context) {
          const backend = heap.createKeyedStateBackend(context);
          backend.dispose = () => void disposed.push(`${context.operatorName} ${context.subtaskIndex + 1}`);
          return backend;
        },
      },
    });
    runtime.disposeBackends();
    assert.deepEqual(disposed, ['keyed 1', 'keyed 2']);
  });

  it("times a source's batches when metrics are on", async () => {
    for (const boundedness of ['unbounded', 'bounded'] as const) {
      let now = 100;
      await onMockedClock(
        () => now,
        async () => {
          const registry = new MetricRegistry();
          const jobGroup = registry.createGroup('job', { job_id: 'j', job_name: 'busy' }, ['busy']);
          const env = StreamExecutionEnvironment.create({ parallelism: 1 });
          let n = 0;
          env
            .fromSource<number>(
              {
                boundedness,
                createReader: () => ({
                  pollNext(out) {
                    out.collect(++n);
                    // The first batch is not sampled, and the next one not before FIRST_SAMPLE_DELAY_MS.
                    now += n === 1 ? FIRST_SAMPLE_DELAY_MS : 3;
                    return n === 2 ? 'end' : 'more';
                  },
                }),
              },
              undefined,
              'src',
            )
            .sinkTo(new CollectSink());
          const runtime = new JobRuntime(env.buildGraph(), {
            clock: new ManualClock(),
            metrics: { registry, jobGroup },
          });
          await run(runtime);
          // The second batch is sampled: its 3 ms are the source's busy time (the sink took none of it).
          assert.equal(
            runtime.subtasksOf(nodeNamed(runtime, 'src'))[0]!.time.batches.sampledBusyMs,
            3,
            boundedness,
          );
          runtime.releaseMetrics();
        },
      );
    }
  });

  it('resolves whenAllFinished once every subtask here has finished, and at once after', async () => {
    const { runtime } = simple();
    await runtime.open();
    let finished = false;
    void runtime.whenAllFinished().then(() => (finished = true));
    await waitTurns('a few turns', () => false, 3).catch(() => {});
    assert.equal(finished, false);
    // The sink's input ends by hand: one subtask of four has finished.
    runtime.subtasksOf(nodeNamed(runtime, 'Sink'))[0]!.channels[0]!.endOfInput();
    await waitTurns('a few turns', () => false, 3).catch(() => {});
    assert.equal(finished, false);
    await runtime.runSources();
    await waitTurns('all finished', () => finished);
    let again = false;
    void runtime.whenAllFinished().then(() => (again = true));
    await waitTurns('all finished again', () => again, 3);
  });

  it('records the first failure only, and tells each listener once', () => {
    const { runtime } = simple();
    const heard: unknown[] = [];
    runtime.onFailure((e) => heard.push(e));
    runtime.fail('first');
    runtime.fail('second');
    assert.deepEqual(heard, ['first']);
    assert.equal(runtime.failureCause, 'first');
  });

  it('logs where it is told to, times subtasks only with metrics, and releases no metrics without them', () => {
    const logger: Logger = { info: () => {}, warn: () => {}, error: () => {} } as unknown as Logger;
    const { runtime } = simple({ logger });
    assert.equal(runtime.logger, logger);
    assert.equal(runtime.timing.enabled, false);
    assert.equal(runtime.restoredCheckpointId, undefined);
    runtime.releaseMetrics();
    assert.notEqual(simple().runtime.logger, undefined);
    const registry = new MetricRegistry();
    const jobGroup = registry.createGroup('job', { job_id: 'j', job_name: 'timed' }, ['timed']);
    assert.equal(simple({ metrics: { registry, jobGroup } }).runtime.timing.enabled, true);
  });

  it('keeps the newest checkpoint a subtask was snapshotted for', () => {
    const { runtime } = simple();
    const [a] = runtime.subtasksOf(nodeNamed(runtime, 'a'));
    runtime.onBarrierAligned(a!, barrier(5));
    runtime.onBarrierAligned(a!, barrier(4));
    assert.equal(a!.lastCheckpointId, 5);
  });

  it('queues barriers at running sources only', async () => {
    const { runtime } = simple();
    await runtime.open();
    runtime.triggerCheckpoint(barrier(2));
    assert.deepEqual(
      [...runtime.subtasks.values()].map((list) => list[0]!.pendingBarriers.map((b) => b.id)),
      [[2], [], [], []],
    );
  });

  it('declines a checkpoint without a listener quietly', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    env
      .fromElements(1)
      .rebalance()
      .map((x: number) => x)
      .keyBy((x: number) => x)
      .transform('rec', () => new Probe('rec', []))
      .sinkTo(new CollectSink());
    const runtime = new JobRuntime(env.buildGraph(), { clock: new ManualClock(), maxAlignmentBytes: 1 });
    await runtime.open();
    const rec = runtime.subtasksOf(nodeNamed(runtime, 'rec'))[0]!;
    rec.channels[0]!.barrier(barrier(3));
    assert.doesNotThrow(() => rec.channels[0]!.process(1, 0));
    assert.equal(rec.channels[0]!.blocked, false, 'the alignment was given up');
  });

  it('tells an incremental keyed backend that a checkpoint completed, before the operators commit', async () => {
    const heap = new HeapStateBackend();
    const told: string[] = [];
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    env
      .fromElements(1)
      .keyBy((x: number) => x)
      .transform('keyed', () => {
        const probe = new Probe('keyed', told);
        probe.notifyCheckpointComplete = (id: number) => void told.push(`operator ${id}`);
        return probe;
      })
      .sinkTo(new CollectSink());
    const runtime = new JobRuntime(env.buildGraph(), {
      clock: new ManualClock(),
      stateBackend: {
        name: 'incremental',
        createKeyedStateBackend(context) {
          const backend = heap.createKeyedStateBackend(context);
          return Object.assign(backend, {
            snapshotIncremental: () => [],
            notifyCheckpointComplete: (id: number) => void told.push(`backend ${id}`),
          });
        },
      },
    });
    await runtime.notifyCheckpointComplete(7);
    assert.deepEqual(
      told.filter((l) => !l.includes('open')),
      ['backend 7', 'operator 7'],
    );
  });

  it('waits for operators that finish asynchronously, one after another, before the sources are done', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const releases: (() => void)[] = [];
    const log: string[] = [];
    class Slow extends AbstractStreamOperator<number> implements OneInputStreamOperator<number, number> {
      constructor(private readonly name: string) {
        super();
      }
      processElement(value: number, timestamp: number): void {
        this.output.collect(value, timestamp);
      }
      override endInput(): Promise<void> {
        log.push(`${this.name} ends`);
        return new Promise<void>((resolve) => releases.push(resolve)).then(
          () => void log.push(`${this.name} ended`),
        );
      }
    }
    env
      .fromElements(1)
      .transform('first', () => new Slow('first'))
      .transform('second', () => new Slow('second'))
      .sinkTo(new CollectSink());
    const runtime = new JobRuntime(env.buildGraph(), { clock: new ManualClock() });
    await runtime.open();
    let done = false;
    const running = runtime.runSources().then(() => (done = true));
    await waitTurns('the first to end', () => releases.length === 1);
    releases[0]!();
    await waitTurns('the second to end', () => releases.length === 2);
    assert.equal(done, false);
    releases[1]!();
    await running;
    assert.deepEqual(log, ['first ends', 'first ended', 'second ends', 'second ended']);
  });

  it('stops waiting for an asynchronous finish once the job failed', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    env
      .fromElements(1)
      .transform('never', () => {
        const probe = new Probe('never', []);
        probe.endInput = () => new Promise<void>(() => {}) as never;
        return probe;
      })
      .sinkTo(new CollectSink());
    const runtime = new JobRuntime(env.buildGraph(), { clock: new ManualClock() });
    await runtime.open();
    const running = runtime.runSources();
    await waitTurns('the source to end', () => runtime.describeWaits().length === 1);
    const reason = new Error('cancelled');
    runtime.cancel(reason);
    await assert.rejects(running, (e: unknown) => e === reason);
    let settled = false;
    void runtime.settleFinishes().then(() => (settled = true));
    await waitTurns('settled', () => settled, 5);
  });
});

describe('JobRuntime figures and waits', () => {
  /** Elements (1) → rebalance → Map (3) → hash → rec (3) → Sink (3). */
  function wide() {
    const env = StreamExecutionEnvironment.create({ parallelism: 3 });
    env
      .fromElements(1, 2, 3)
      .map((x: number) => x)
      .keyBy((x: number) => x)
      .transform('rec', () => new Probe('rec', []))
      .sinkTo(new CollectSink());
    const runtime = new JobRuntime(env.buildGraph(), { clock: new ManualClock() });
    return { runtime, rec: runtime.subtasksOf(nodeNamed(runtime, 'rec')) };
  }

  it('sums alignments over the subtasks of an operator and keeps the longest', async () => {
    let now = 0;
    await onMockedClock(
      () => now,
      () => {
        const { runtime, rec } = wide();
        for (const [subtask, ms] of [
          [0, 5],
          [1, 3],
        ] as const) {
          rec[subtask]!.channels[0]!.barrier(barrier(1));
          now += ms;
          rec[subtask]!.channels[1]!.barrier(barrier(1));
          rec[subtask]!.channels[2]!.barrier(barrier(1));
        }
        const figures = runtime.metrics().find((m) => m.name === 'rec')!;
        assert.deepEqual([figures.alignments, figures.alignmentMs, figures.maxAlignmentMs], [2, 8, 5]);
      },
    );
  });

  it('lists every channel a subtask waits on, and only those not ended', async () => {
    const { runtime, rec } = wide();
    rec[0]!.channels[0]!.barrier(barrier(1));
    rec[1]!.channels[2]!.endOfInput();
    const waits = runtime.describeWaits();
    assert.equal(
      waits[4],
      "'rec' (1/3) waits for a barrier from channel 2 ('Map' 2/3), channel 3 ('Map' 3/3) since checkpoint 1",
    );
    assert.equal(
      waits[5],
      "'rec' (2/3) waits for records or end of input from channel 1 ('Map' 1/3), channel 2 ('Map' 2/3)",
    );
    // The source feeds both blocked channels: it is held back for good, and the stall names both.
    rec[1]!.channels[0]!.barrier(barrier(1));
    await runtime.open();
    await assert.rejects(
      runtime.runSources(),
      (e: unknown) =>
        e instanceof JobStalledError &&
        e.waits[0] ===
          "'Elements' (1/1) is held back by blocked channel(s) channel 1 ('Map' 1/3) of 'rec' (1/3) for checkpoint 1, channel 1 ('Map' 1/3) of 'rec' (2/3) for checkpoint 1",
    );
  });

  it('reads the partial matches of CEP subtasks only', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    CEP.pattern(
      env.fromElements(1, 2).keyBy((x: number) => x % 2),
      Pattern.begin<number, 'one'>('one')
        .where((x) => x === 1)
        .followedBy('three')
        .where((x) => x === 3),
    )
      .select((m: { one: number[] }) => m.one[0]!)
      .name('cep')
      .sinkTo(new CollectSink());
    const runtime = new JobRuntime(env.buildGraph(), { clock: new ManualClock() });
    await runtime.open();
    const cep = nodeNamed(runtime, 'cep');
    const [first, second] = runtime.subtasksOf(cep);
    for (const subtask of [first!, second!]) subtask.channels[0]!.process(1, 0);
    const matches = await runtime.partialMatches(cep, DEFAULT_PARTIAL_MATCH_QUERY);
    assert.deepEqual(
      matches.map((m) => [m.subtask, m.numKeys]),
      [
        [0, 1],
        [1, 1],
      ],
    );
    assert.deepEqual(runtime.localPartialMatches(runtime.graph.nodes[0]!, DEFAULT_PARTIAL_MATCH_QUERY), []);
  });
});

describe('JobRuntime in worker mode', () => {
  for (const boundedness of ['unbounded', 'bounded'] as const) {
    it(`polls its ${boundedness} sources for up to SOURCE_TURN_MS of one turn before letting the event loop run`, async () => {
      let now = 0;
      await onMockedClock(
        () => now,
        async () => {
          const env = StreamExecutionEnvironment.create({ parallelism: 1 });
          const polls: number[] = [];
          let n = 0;
          let atMicrotask = 0;
          env
            .fromSource<number>(
              {
                boundedness,
                createReader: () => ({
                  pollNext(out) {
                    n++;
                    polls.push(now);
                    out.collect(n);
                    // As the exchange queues the flush of what a turn wrote to other threads.
                    if (n === 2) queueMicrotask(() => (atMicrotask = polls.length));
                    // Every batch takes 1 ms; the sixth ends the input.
                    now += 1;
                    return n === 6 ? 'end' : 'more';
                  },
                }),
              },
              undefined,
              'src',
            )
            .sinkTo(new CollectSink());
          const runtime = new JobRuntime(env.buildGraph(), {
            clock: new ManualClock(),
            placement: {
              host: 1,
              hostOf: () => 1,
              exchange: new RecordingExchange() as unknown as ThreadExchange,
            },
          });
          await runtime.open();
          now = 10;
          const done = runtime.runSources();
          // The turn began at 0 (before any): the first batch already spent it.
          assert.deepEqual(polls, [10]);
          let inTurn: number[] = [];
          setImmediate(() => (inTurn = [...polls]));
          await done;
          // Each later turn starts when the driver resumes and takes batches until 2 ms have passed, without
          // letting even microtasks run between them: a turn's records leave in one flush.
          assert.deepEqual(inTurn, [10, 11, 12]);
          assert.equal(atMicrotask, 3);
          assert.deepEqual(polls, [10, 11, 12, 13, 14, 15]);
        },
      );
    });
  }
});
