// The graph of one task: a sub-topology's operators at parallelism 1 between the task's input and its topics.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../api/stream-execution-environment.ts';
import { CollectionSource } from '../../connectors/collection-source.ts';
import { GeneratorSource } from '../../connectors/generator-source.ts';
import { ManualClock } from '../../core/clock.ts';
import type { Sink } from '../../core/sink.ts';
import { cutIntoSubTopologies } from '../../graph/sub-topologies.ts';
import { JobRuntime } from '../../runtime/job-runtime.ts';

import { buildTaskGraph } from './task-graph.ts';

/** A sink that appends what it is given, tagged, to `into`. */
function collecting(tag: string, into: string[]): Sink<unknown> {
  return { createWriter: () => ({ write: (value) => void into.push(`${tag} ${JSON.stringify(value)}`) }) };
}

function job() {
  const env = StreamExecutionEnvironment.create({ parallelism: 2 });
  env
    .fromSource(
      GeneratorSource.of(4, (i) => i),
      undefined,
      'numbers',
    )
    .uid('numbers')
    .map((n) => ({ key: `k${n % 2}`, n: n * 2 }), 'double')
    .uid('double')
    .keyBy((e) => e.key)
    .map((e) => `${e.key}=${e.n}`, 'describe')
    .uid('describe')
    .print()
    .uid('print');
  return cutIntoSubTopologies(env.buildGraph(), { jobId: 'job' });
}

async function run(graph: ReturnType<typeof buildTaskGraph>): Promise<void> {
  const runtime = new JobRuntime(graph, { clock: new ManualClock(0) });
  await runtime.open();
  await runtime.runSources();
  await runtime.close();
}

describe('buildTaskGraph', () => {
  it("runs the first sub-topology's operators over the task's input into its repartition topic", async () => {
    const topology = job();
    const out: string[] = [];
    const graph = buildTaskGraph(topology, topology.subTopologies[0]!, {
      input: new CollectionSource([5, 6]),
      emission: { mode: 'deterministic', intervalMs: 200, everyRecords: 100 },
      sink: () => collecting('sink', out),
      repartitionSink: (topic, edge) => collecting(`${topic.name} from ${edge.source.uid}`, out),
    });
    assert.deepEqual(
      graph.nodes.map(
        (n) => `${n.name} uid=${n.uid} p=${n.parallelism} in=${n.inputs.map((e) => e.partitioning.kind)}`,
      ),
      [
        'numbers uid=numbers p=1 in=',
        'double uid=double p=1 in=forward',
        'double -> job-describe-repartition uid=double-to-job-describe-repartition p=1 in=forward',
      ],
    );
    await run(graph);
    assert.deepEqual(out, [
      'job-describe-repartition from double {"key":"k1","n":10}',
      'job-describe-repartition from double {"key":"k0","n":12}',
    ]);
  });

  it('runs the keyed sub-topology over the repartition topic it reads, into its sinks', async () => {
    const topology = job();
    const out: string[] = [];
    const graph = buildTaskGraph(topology, topology.subTopologies[1]!, {
      input: new CollectionSource([
        { key: 'k0', n: 0 },
        { key: 'k1', n: 2 },
      ]),
      emission: { mode: 'deterministic', intervalMs: 200, everyRecords: 100 },
      sink: (node) => collecting(node.name, out),
      repartitionSink: () => assert.fail('the last sub-topology writes no repartition topic'),
    });
    assert.deepEqual(
      graph.nodes.map((n) => `${n.name} uid=${n.uid} p=${n.parallelism} keyed=${n.transformation.isKeyed}`),
      [
        'job-describe-repartition uid=job-describe-repartition-input p=1 keyed=false',
        'describe uid=describe p=1 keyed=true',
        'Print to Std. Out uid=print p=1 keyed=false',
      ],
    );
    await run(graph);
    assert.deepEqual(out, ['Print to Std. Out "k0=0"', 'Print to Std. Out "k1=2"']);
  });
});
