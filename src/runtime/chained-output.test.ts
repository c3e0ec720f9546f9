// ChainedOutput: the hop an operator emits into when its one main edge is chained into a one-input operator, compiled
// once per consumer class; records, counts, failures and sampled-batch timing as through the subtask's output.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runChildProcess } from '../../test/support/child-run.ts';
import { CollectSink, JobExecutionError, ManualClock, StreamExecutionEnvironment } from '../index.ts';
import type { StreamNode } from '../graph/stream-graph.ts';
import { MetricRegistry } from '../metrics/metric-registry.ts';
import { FIRST_SAMPLE_DELAY_MS } from './busy-time-tracker.ts';
import { JobRuntime } from './job-runtime.ts';
import type { Subtask } from './subtask.ts';

function subtaskOf(runtime: JobRuntime, name: string): Subtask {
  const node = runtime.graph.nodes.find((n: StreamNode) => n.name === name)!;
  return runtime.subtasksOf(node)[0]!;
}

/** The output the subtask's operator emits into. */
function operatorOutput(subtask: Subtask): object {
  return (subtask.operator as unknown as { output: object }).output;
}

async function run(runtime: JobRuntime): Promise<void> {
  await runtime.open();
  await runtime.runSources();
  await runtime.close();
}

describe('ChainedOutput', () => {
  it('gives an operator chained into a one-input operator a hop compiled once per consumer class', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const sink = new CollectSink<number>();
    env
      .fromElements(1, 2, 3, 4, 5)
      .name('source')
      .map((x) => x * 10)
      .name('first map')
      .map((x) => x + 1)
      .name('second map')
      .filter((x) => x % 3 !== 0)
      .name('filter')
      .sinkTo(sink)
      .name('sink');
    const runtime = new JobRuntime(env.buildGraph(), { clock: new ManualClock() });
    const hop = (name: string) => operatorOutput(subtaskOf(runtime, name)).constructor;
    // Into a map from the source and from the first map: one class; into the second map and the filter: others.
    assert.equal(hop('source'), hop('first map'));
    assert.match(hop('first map').name, /^ChainedOutputIntoStreamMap\d+$/);
    assert.match(hop('second map').name, /^ChainedOutputIntoStreamFilter\d+$/);
    assert.notEqual(hop('second map'), hop('filter'));
    // The sink has no main edge: its operator keeps the subtask's output.
    assert.equal(operatorOutput(subtaskOf(runtime, 'sink')), subtaskOf(runtime, 'sink').output);
    await run(runtime);
    assert.deepEqual(sink.values, [11, 31, 41]);
  });

  it('counts every record on both sides of the hop, as the subtask output and input do', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    env
      .fromElements(1, 2, 3, 4, 5, 6)
      .name('source')
      .filter((x) => x % 2 === 0)
      .name('even')
      .map((x) => x * x)
      .name('square')
      .sinkTo(new CollectSink())
      .name('sink');
    const runtime = new JobRuntime(env.buildGraph(), { clock: new ManualClock() });
    await run(runtime);
    const counts = ['source', 'even', 'square', 'sink'].map((name) => {
      const s = subtaskOf(runtime, name);
      return [name, s.inputs.reduce((n, input) => n + input.recordsIn, 0), s.output.recordsOut];
    });
    assert.deepEqual(counts, [
      ['source', 0, 6],
      ['even', 6, 3],
      ['square', 3, 3],
      ['sink', 3, 0],
    ]);
  });

  it('names the consumer operator and its record when the consumer fails, and passes the failure up unchanged', async () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    env
      .fromElements(1, 2, 3)
      .name('source')
      .map((x) => x + 1)
      .name('upstream')
      .map((x) => {
        if (x === 3) throw new Error('no threes');
        return x;
      })
      .name('failing')
      .sinkTo(new CollectSink());
    const runtime = new JobRuntime(env.buildGraph(), { clock: new ManualClock() });
    await runtime.open();
    await assert.rejects(runtime.runSources(), (failure: unknown) => {
      assert.ok(failure instanceof JobExecutionError, String(failure));
      // Not 'upstream', whose hop the failure passed through on its way up.
      assert.equal(failure.location.operator, 'failing');
      assert.equal(failure.location.record, '3');
      assert.equal((failure.cause as Error).message, 'no threes');
      return true;
    });
  });

  it('times each hop of a sampled batch, as through the subtask output', async () => {
    let now = 100;
    Object.defineProperty(performance, 'now', { value: () => now, configurable: true, writable: true });
    try {
      const registry = new MetricRegistry();
      const jobGroup = registry.createGroup('job', { job_id: 'j', job_name: 'hops' }, ['hops']);
      const env = StreamExecutionEnvironment.create({ parallelism: 1 });
      let n = 0;
      env
        .fromSource<number>(
          {
            boundedness: 'bounded',
            createReader: () => ({
              pollNext(out) {
                out.collect(++n);
                // The first batch is not sampled; the second, FIRST_SAMPLE_DELAY_MS later, is.
                if (n === 1) now += FIRST_SAMPLE_DELAY_MS;
                return n === 2 ? 'end' : 'more';
              },
            }),
          },
          undefined,
          'source',
        )
        .map((x) => {
          now += 5;
          return x;
        })
        .name('slow')
        .map((x) => {
          now += 2;
          return x;
        })
        .name('quick')
        .sinkTo(new CollectSink());
      const runtime = new JobRuntime(env.buildGraph(), {
        clock: new ManualClock(),
        metrics: { registry, jobGroup },
      });
      await run(runtime);
      const time = (name: string) => {
        const t = subtaskOf(runtime, name).time;
        return [t.batches.sampledBusyMs, t.batches.sampledBackPressuredMs];
      };
      // In the sampled batch: 'slow' spent 5 ms itself and 2 in 'quick'; the source waited 7 ms on them.
      assert.deepEqual(time('slow'), [5, 2]);
      assert.deepEqual(time('quick'), [2, 0]);
      assert.deepEqual(time('source'), [0, 7]);
      runtime.releaseMetrics();
    } finally {
      delete (performance as { now?: unknown }).now;
    }
  });
  it('falls back to the subtask output where the process refuses to compile code from strings', async () => {
    // The hop is compiled with `new Function`, which a process started with this flag refuses (EvalError): the job
    // must run as before, every operator emitting through its subtask's output.
    const exit = await runChildProcess(
      fileURLToPath(new URL('../../test/support/no-codegen-chained-job.ts', import.meta.url)),
      [],
      {
        timeoutMs: 60_000,
        what: 'a chained job without code generation',
        nodeOptions: ['--disallow-code-generation-from-strings'],
      },
    );
    assert.equal(exit.code, 0, exit.stderr);
    assert.equal(exit.stdout.trim(), '[10,20,40,50]');
  });
});
