// Cutting job graphs into sub-topologies and tasks: where the cuts fall, the topics, the task ids, the checks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import { GeneratorSource } from '../connectors/generator-source.ts';
import { ConfigurationError } from '../core/errors.ts';
import { cutIntoSubTopologies, type TaskTopology } from './sub-topologies.ts';
import type { StreamNode } from './stream-graph.ts';

const numbers = (count = 10) => GeneratorSource.of(count, (i) => i);

/** The cut as text: each sub-topology's nodes and topics, each topic's partitions and producers. */
function describeCut(topology: TaskTopology): string[] {
  return [
    ...topology.subTopologies.map(
      (s) =>
        `${s.id}: [${s.nodes.map((n) => n.name).join(', ')}] tasks ${s.tasks.join(',')}` +
        ` in ${s.inputTopics.join(',') || '-'} out ${s.outputTopics.join(',') || '-'}`,
    ),
    ...topology.repartitionTopics.map(
      (t) =>
        `${t.name}: ${t.partitions} partitions, ${t.edges.map((e) => e.partitioning.kind).join('+')} into ` +
        `'${t.target.name}' input ${t.inputIndex}, from ${t.producers.join(',')}`,
    ),
  ];
}

describe('cutIntoSubTopologies', () => {
  it('cuts a keyBy: source and map in one sub-topology, the keyed reduce and sink in the next', () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    env
      .fromSource(numbers(), undefined, 'numbers')
      .uid('numbers')
      .map((n) => n * 2, 'double')
      .uid('double')
      .keyBy((n) => n % 3)
      .reduce((a, b) => a + b, 'sum')
      .uid('sum')
      .print();
    const topology = cutIntoSubTopologies(env.buildGraph(), { jobId: 'job' });
    assert.deepEqual(describeCut(topology), [
      '0: [numbers, double] tasks 0_0,0_1 in - out job-sum-repartition',
      '1: [sum, Print to Std. Out] tasks 1_0,1_1 in job-sum-repartition out -',
      "job-sum-repartition: 2 partitions, hash into 'sum' input 0, from 0_0/double,0_1/double",
    ]);
    assert.deepEqual(topology.tasks, ['0_0', '0_1', '1_0', '1_1']);
    assert.equal(topology.repartitionTopics[0]!.maxParallelism, 128);
  });

  it('cuts rebalance, broadcast and global edges, and a parallelism change (an automatic rebalance)', () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 3 });
    env
      .fromElements(1, 2, 3) // parallelism 1: the map after it (3) is fed round-robin
      .map((n) => n, 'a')
      .uid('a')
      .rebalance()
      .map((n) => n, 'b')
      .uid('b')
      .broadcast()
      .map((n) => n, 'c')
      .uid('c')
      .global()
      .map((n) => n, 'd')
      .uid('d')
      .setParallelism(1)
      .print()
      .setParallelism(1);
    assert.deepEqual(describeCut(cutIntoSubTopologies(env.buildGraph(), { jobId: 'j' })), [
      '0: [Elements] tasks 0_0 in - out j-a-repartition',
      '1: [a] tasks 1_0,1_1,1_2 in j-a-repartition out j-b-repartition',
      '2: [b] tasks 2_0,2_1,2_2 in j-b-repartition out j-c-repartition',
      '3: [c] tasks 3_0,3_1,3_2 in j-c-repartition out j-d-repartition',
      '4: [d, Print to Std. Out] tasks 4_0 in j-d-repartition out -',
      "j-a-repartition: 3 partitions, rebalance into 'a' input 0, from 0_0/0-Elements",
      "j-b-repartition: 3 partitions, rebalance into 'b' input 0, from 1_0/a,1_1/a,1_2/a",
      "j-c-repartition: 3 partitions, broadcast into 'c' input 0, from 2_0/b,2_1/b,2_2/b",
      "j-d-repartition: 1 partitions, global into 'd' input 0, from 3_0/c,3_1/c,3_2/c",
    ]);
  });

  it('keeps forward-connected inputs of a two-input operator in one sub-topology, and gives each keyed input a topic', () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const left = env.fromSource(numbers(), undefined, 'left').uid('left');
    const right = env.fromSource(numbers(), undefined, 'right').uid('right');
    const side = env.fromSource(numbers(), undefined, 'side').uid('side');
    left
      .keyBy((n) => n)
      .connect(right.keyBy((n) => n))
      .process<number>({ processElement1: () => {}, processElement2: () => {} }, 'join')
      .uid('join')
      .union(side)
      .print();
    const topology = cutIntoSubTopologies(env.buildGraph(), { jobId: 'j' });
    assert.deepEqual(describeCut(topology), [
      '0: [left] tasks 0_0,0_1 in - out j-join-repartition',
      '1: [right] tasks 1_0,1_1 in - out j-join-repartition-1',
      '2: [side, join, Print to Std. Out] tasks 2_0,2_1 in j-join-repartition,j-join-repartition-1 out -',
      "j-join-repartition: 2 partitions, hash into 'join' input 0, from 0_0/left,0_1/left",
      "j-join-repartition-1: 2 partitions, hash into 'join' input 1, from 1_0/right,1_1/right",
    ]);
    assert.deepEqual(topology.tasks, ['0_0', '0_1', '1_0', '1_1', '2_0', '2_1']);
  });

  it('writes the streams of a union into one topic, with every writer as a producer', () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const a = env.fromSource(numbers(), undefined, 'a').uid('a');
    const b = env.fromSource(numbers(), undefined, 'b').uid('b').setParallelism(1);
    a.union(b)
      .keyBy((n) => n)
      .reduce((x, y) => x + y, 'sum')
      .uid('sum')
      .print();
    assert.deepEqual(describeCut(cutIntoSubTopologies(env.buildGraph(), { jobId: 'j' })), [
      '0: [a] tasks 0_0,0_1 in - out j-sum-repartition',
      '1: [b] tasks 1_0 in - out j-sum-repartition',
      '2: [sum, Print to Std. Out] tasks 2_0,2_1 in j-sum-repartition out -',
      "j-sum-repartition: 2 partitions, hash+hash into 'sum' input 0, from 0_0/a,0_1/a,1_0/b",
    ]);
  });

  it("has one task per partition of its sources' topics, and refuses sources that are not co-partitioned", () => {
    const build = () => {
      const env = StreamExecutionEnvironment.create({ parallelism: 2 });
      const orders = env.fromSource(numbers(), undefined, 'orders').uid('orders');
      const refunds = env.fromSource(numbers(), undefined, 'refunds').uid('refunds');
      orders
        .union(refunds)
        .keyBy((n) => n)
        .reduce((x, y) => x + y, 'sum')
        .uid('sum')
        .print();
      return env.buildGraph();
    };
    const partitions =
      (counts: Record<string, number>) =>
      (source: StreamNode): number | undefined =>
        counts[source.name];
    // Each source is its own sub-topology (a union is not an operator): 6 and 4 tasks; the keyed side 2.
    assert.deepEqual(
      describeCut(
        cutIntoSubTopologies(build(), {
          jobId: 'j',
          sourcePartitions: partitions({ orders: 6, refunds: 4 }),
        }),
      ),
      [
        '0: [orders] tasks 0_0,0_1,0_2,0_3,0_4,0_5 in - out j-sum-repartition',
        '1: [refunds] tasks 1_0,1_1,1_2,1_3 in - out j-sum-repartition',
        '2: [sum, Print to Std. Out] tasks 2_0,2_1 in j-sum-repartition out -',
        "j-sum-repartition: 2 partitions, hash+hash into 'sum' input 0, from " +
          '0_0/orders,0_1/orders,0_2/orders,0_3/orders,0_4/orders,0_5/orders,1_0/refunds,1_1/refunds,1_2/refunds,1_3/refunds',
      ],
    );

    // Read by one operator over forward edges, the two topics are one sub-topology's inputs.
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const orders = env.fromSource(numbers(), undefined, 'orders').uid('orders');
    const refunds = env.fromSource(numbers(), undefined, 'refunds').uid('refunds');
    orders
      .union(refunds)
      .map((n) => n, 'both')
      .uid('both')
      .print();
    const graph = env.buildGraph();
    assert.deepEqual(
      cutIntoSubTopologies(graph, { jobId: 'j', sourcePartitions: partitions({ orders: 8, refunds: 8 }) })
        .tasks,
      ['0_0', '0_1', '0_2', '0_3', '0_4', '0_5', '0_6', '0_7'],
    );
    assert.throws(
      () =>
        cutIntoSubTopologies(graph, { jobId: 'j', sourcePartitions: partitions({ orders: 8, refunds: 6 }) }),
      (error: Error) =>
        error instanceof ConfigurationError &&
        error.message ===
          "Sub-topology 0 reads topics that are not co-partitioned: source 'orders' has 8 partitions and source " +
            "'refunds' 6; the inputs of one sub-topology must have as many partitions each (put a keyBy or " +
            'rebalance after one of them)',
    );
  });

  it('refuses a keyed operator with more tasks than its max parallelism', () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 2 });
    const keyed = env
      .fromSource(numbers(), undefined, 'in')
      .uid('in')
      .keyBy((n) => n)
      .reduce((x, y) => x + y, 'sum')
      .uid('sum')
      .setMaxParallelism(16);
    keyed.union(env.fromSource(numbers(), undefined, 'big').uid('big')).print();
    assert.throws(
      () =>
        cutIntoSubTopologies(env.buildGraph(), {
          jobId: 'j',
          sourcePartitions: (s) => (s.name === 'big' ? 32 : undefined),
        }),
      (error: Error) =>
        error instanceof ConfigurationError &&
        error.message ===
          "Keyed operator 'sum' runs as 32 tasks, more than its max parallelism 16: a task reads one partition, " +
            'which must hold at least one key group',
    );
  });

  it('makes topic names of uids, and refuses two uids that give one name', () => {
    const env = StreamExecutionEnvironment.create({ parallelism: 1 });
    const input = env.fromSource(numbers(), undefined, 'in').uid('in');
    input
      .keyBy((n) => n)
      .reduce((x, y) => x + y, 'Keyed Reduce')
      .print();
    assert.deepEqual(
      cutIntoSubTopologies(env.buildGraph(), { jobId: 'j' }).repartitionTopics.map((t) => t.name),
      ['j-1-Keyed_Reduce-repartition'],
    );
    input
      .keyBy((n) => n)
      .reduce((x, y) => x + y, 'other')
      .uid('1-Keyed/Reduce')
      .print();
    assert.throws(
      () => cutIntoSubTopologies(env.buildGraph(), { jobId: 'j' }),
      (error: Error) =>
        error instanceof ConfigurationError &&
        error.message ===
          "Operators 'Keyed Reduce' (uid '1-Keyed Reduce') and 'other' (uid '1-Keyed/Reduce') would share the " +
            "repartition topic 'j-1-Keyed_Reduce-repartition'; give them uids that differ in letters, digits, '.', '_' or '-'",
    );
  });
});
