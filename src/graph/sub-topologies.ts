// Sub-topologies: a job graph cut at its redistributing edges into the tasks of the scale-out mode on Kafka.
import { ConfigurationError } from '../core/errors.ts';
import type { PartitionerKind } from './transformation.ts';
import type { StreamEdge, StreamGraph, StreamNode } from './stream-graph.ts';

/**
 * One sub-topology: the operators connected by forward edges, which run chained inside one task, with the
 * repartition topics that feed it and those it writes. It runs as `tasks.length` tasks, task `<id>_<p>` applied
 * to partition `p` of every input (Kafka Streams' tasks).
 */
export interface SubTopology {
  /** 0, 1, ...: ordered by the smallest node id each holds (the order the job's API calls created them). */
  readonly id: number;
  /** Its operators, sources and sinks, in node id order. */
  readonly nodes: readonly StreamNode[];
  /** The repartition topics it reads, by name. */
  readonly inputTopics: readonly string[];
  /** The repartition topics it writes, by name. */
  readonly outputTopics: readonly string[];
  /** Its task ids, `<id>_<partition>`, by partition. */
  readonly tasks: readonly string[];
}

/** One repartition topic: the redistributing edges into one input of one operator. */
export interface RepartitionTopicPlan {
  /** `<job id>-<operator uid>-repartition` (`-repartition-1` for a two-input operator's second input). */
  readonly name: string;
  /** The tasks of the sub-topology that reads it: one partition per task. */
  readonly partitions: number;
  /** The operator that reads it, and which of its inputs. */
  readonly target: StreamNode;
  readonly inputIndex: number;
  /** The sub-topology that reads it. */
  readonly consumer: number;
  /** The edges written into it (several behind a union), each with its partitioning and writer. */
  readonly edges: readonly StreamEdge[];
  /**
   * The writers the reader waits for before its first watermark: `<task id>/<operator uid>` for every task of
   * every writing sub-topology and every operator writing, in order.
   */
  readonly producers: readonly string[];
  /** The reading operator's max parallelism: key groups and markers agree on it. */
  readonly maxParallelism: number;
}

/** A job graph cut into sub-topologies and tasks. */
export interface TaskTopology {
  readonly subTopologies: readonly SubTopology[];
  readonly repartitionTopics: readonly RepartitionTopicPlan[];
  /**
   * Every task of the job, sub-topology by sub-topology: task `tasks[t]` is partition `t` of the job's task
   * topic, which the consumer group assigns.
   */
  readonly tasks: readonly string[];
  /** The sub-topology of each node, by node id. */
  readonly subTopologyOf: ReadonlyMap<number, number>;
}

/** What cutting needs besides the graph. */
export interface CutOptions {
  /** The job's id: the prefix of its topics. */
  readonly jobId: string;
  /**
   * The partition count of the topic a source reads, when it reads a partitioned topic (a Kafka source); the
   * sub-topology of that source has one task per partition. Sources without one (undefined) count as
   * partitioned by their parallelism.
   */
  readonly sourcePartitions?: (source: StreamNode) => number | undefined;
}

/** The edges that redistribute records, so become a topic: everything but forward. */
const REDISTRIBUTING: ReadonlySet<PartitionerKind> = new Set(['hash', 'rebalance', 'broadcast', 'global']);

/** A valid Kafka topic name: at most 249 of these characters. */
const TOPIC_CHARACTER = /[^A-Za-z0-9._-]/g;

/**
 * Cuts a job graph at its redistributing edges (keyBy, rebalance, broadcast, global): each connected group of
 * operators joined by forward edges is a sub-topology, and each input of an operator fed by redistributing edges
 * is a repartition topic with one partition per task of the reading sub-topology.
 *
 * A sub-topology's tasks are its inputs' partitions: the partition count of its sources' topics, or its
 * parallelism when its sources read no partitioned topic (forward edges make every operator of a sub-topology
 * run at one parallelism). Its inputs must be co-partitioned, as in Kafka Streams: two sources whose topics have
 * different partition counts cannot be one sub-topology, since partition `p` of each would not hold the same
 * keys. That, a keyed input with more partitions than its operator's max parallelism, and two operators whose
 * uids give the same topic name are {@link ConfigurationError}s.
 *
 * @example
 * // source → map → keyBy → window → sink: two sub-topologies over one repartition topic
 * const topology = cutIntoSubTopologies(env.buildGraph(), { jobId: 'orders' });
 * topology.tasks; // ['0_0', '0_1', '1_0', '1_1'] at parallelism 2
 */
export function cutIntoSubTopologies(graph: StreamGraph, options: CutOptions): TaskTopology {
  const groups = forwardGroups(graph.nodes);
  const subTopologyOf = new Map<number, number>();
  groups.forEach((nodes, id) => nodes.forEach((n) => subTopologyOf.set(n.id, id)));
  const taskCounts = groups.map((nodes, id) => taskCount(id, nodes, options));

  // One topic per (operator, input) fed by redistributing edges, in the order of their operators.
  const byInput = new Map<string, { target: StreamNode; inputIndex: number; edges: StreamEdge[] }>();
  for (const node of graph.nodes) {
    for (const edge of node.inputs) {
      if (!REDISTRIBUTING.has(edge.partitioning.kind)) continue;
      const key = `${node.id}/${edge.inputIndex}`;
      let entry = byInput.get(key);
      if (entry === undefined) {
        entry = { target: node, inputIndex: edge.inputIndex, edges: [] };
        byInput.set(key, entry);
      }
      entry.edges.push(edge);
    }
  }
  const names = new Map<string, StreamNode>();
  const repartitionTopics: RepartitionTopicPlan[] = [];
  for (const { target, inputIndex, edges } of byInput.values()) {
    const consumer = subTopologyOf.get(target.id)!;
    const partitions = taskCounts[consumer]!;
    const name = topicName(options.jobId, target, inputIndex);
    const clash = names.get(name);
    if (clash !== undefined && clash !== target)
      throw new ConfigurationError(
        `Operators '${clash.name}' (uid '${clash.uid}') and '${target.name}' (uid '${target.uid}') would share ` +
          `the repartition topic '${name}'; give them uids that differ in letters, digits, '.', '_' or '-'`,
      );
    names.set(name, target);
    if (edges.some((e) => e.partitioning.kind === 'hash') && partitions > target.maxParallelism)
      throw new ConfigurationError(
        `Keyed operator '${target.name}' runs as ${partitions} tasks, more than its max parallelism ` +
          `${target.maxParallelism}: a task reads one partition, which must hold at least one key group`,
      );
    const producers = edges.flatMap((e) => {
      const writer = subTopologyOf.get(e.source.id)!;
      return taskIds(writer, taskCounts[writer]!).map((task) => `${task}/${e.source.uid}`);
    });
    repartitionTopics.push({
      name,
      partitions,
      target,
      inputIndex,
      consumer,
      edges,
      producers,
      maxParallelism: target.maxParallelism,
    });
  }

  const subTopologies: SubTopology[] = groups.map((nodes, id) => ({
    id,
    nodes,
    inputTopics: repartitionTopics.filter((t) => t.consumer === id).map((t) => t.name),
    outputTopics: repartitionTopics
      .filter((t) => t.edges.some((e) => subTopologyOf.get(e.source.id) === id))
      .map((t) => t.name),
    tasks: taskIds(id, taskCounts[id]!),
  }));
  return {
    subTopologies,
    repartitionTopics,
    tasks: subTopologies.flatMap((s) => s.tasks),
    subTopologyOf,
  };
}

/**
 * The nodes joined by forward edges (in either direction: a two-input operator joins its inputs' groups), each
 * group in node id order, groups ordered by their smallest node id. Union-find over the forward edges.
 */
function forwardGroups(nodes: readonly StreamNode[]): StreamNode[][] {
  const parent = new Map<number, number>(nodes.map((n) => [n.id, n.id]));
  const root = (id: number): number => {
    let r = id;
    while (parent.get(r)! !== r) r = parent.get(r)!;
    parent.set(id, r);
    return r;
  };
  for (const node of nodes)
    for (const edge of node.inputs)
      if (!REDISTRIBUTING.has(edge.partitioning.kind)) {
        const a = root(edge.source.id);
        const b = root(node.id);
        if (a !== b) parent.set(Math.max(a, b), Math.min(a, b));
      }
  const groups = new Map<number, StreamNode[]>();
  for (const node of [...nodes].sort((a, b) => a.id - b.id)) {
    const r = root(node.id);
    let group = groups.get(r);
    if (group === undefined) groups.set(r, (group = []));
    group.push(node);
  }
  return [...groups.values()].sort((a, b) => a[0]!.id - b[0]!.id);
}

/** The tasks of one sub-topology: its sources' common partition count, else its parallelism. */
function taskCount(id: number, nodes: readonly StreamNode[], options: CutOptions): number {
  const partitioned: { source: StreamNode; partitions: number }[] = [];
  for (const node of nodes) {
    if (node.transformation.kind !== 'source') continue;
    const partitions = options.sourcePartitions?.(node);
    if (partitions !== undefined) partitioned.push({ source: node, partitions });
  }
  const first = partitioned[0];
  if (first === undefined) return nodes[0]!.parallelism;
  const other = partitioned.find((p) => p.partitions !== first.partitions);
  if (other !== undefined)
    throw new ConfigurationError(
      `Sub-topology ${id} reads topics that are not co-partitioned: source '${first.source.name}' has ` +
        `${first.partitions} partitions and source '${other.source.name}' ${other.partitions}; the inputs of ` +
        `one sub-topology must have as many partitions each (put a keyBy or rebalance after one of them)`,
    );
  return first.partitions;
}

function taskIds(subTopology: number, count: number): string[] {
  return Array.from({ length: count }, (_, p) => `${subTopology}_${p}`);
}

/** `<job id>-<uid>-repartition`, characters a topic name cannot hold replaced by '_'. */
function topicName(jobId: string, target: StreamNode, inputIndex: number): string {
  const suffix = inputIndex === 0 ? 'repartition' : `repartition-${inputIndex}`;
  const name = `${jobId}-${target.uid}-${suffix}`.replace(TOPIC_CHARACTER, '_');
  if (name.length > 249)
    throw new ConfigurationError(
      `The repartition topic name '${name}' is longer than Kafka's 249 characters; give '${target.name}' a shorter uid`,
    );
  return name;
}
