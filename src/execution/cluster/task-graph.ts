// The job graph of one task: a sub-topology's operators at parallelism 1, between its input and its topics.
import type { Sink } from '../../core/sink.ts';
import type { Source } from '../../core/source.ts';
import { StreamGraph, type StreamEdge, type StreamNode } from '../../graph/stream-graph.ts';
import type { RepartitionTopicPlan, SubTopology, TaskTopology } from '../../graph/sub-topologies.ts';
import { Transformation } from '../../graph/transformation.ts';
import { SinkOperator } from '../../operators/sink-operator.ts';
import { SourceOperator } from '../../operators/source-operator.ts';
import type { WatermarkEmission } from '../../time/watermark-emission.ts';
import { TaskRepartitionSink, TaskRepartitionSinkOperator } from './task-sinks.ts';

/** What replaces the ends of a sub-topology in one of its tasks. */
export interface TaskGraphParts {
  /** The task's one input: its partition of the job's Kafka topic or of the repartition topic read. */
  readonly input: Source<unknown>;
  /** The sink a sink node of the job becomes in the task (its KafkaSink writes into the task's transaction). */
  sink(node: StreamNode): Sink<unknown>;
  /** The sink of a redistributing edge leaving the sub-topology: a producer of the repartition topic. */
  repartitionSink(topic: RepartitionTopicPlan, edge: StreamEdge): Sink<unknown>;
  /** The job's periodic watermark emission. */
  readonly emission: WatermarkEmission;
}

/**
 * Builds the graph one task runs: the sub-topology's nodes, each at parallelism 1 with its uid, user functions
 * and key selectors (a keyed operator's state covers every key group: the task's partition holds only its own);
 * the sources, or the repartition topic read, replaced by `parts.input`; every redistributing edge leaving the
 * sub-topology ending in a repartition sink. Forward edges stay chained in one thread, so every record a read
 * emits has reached the sinks, and so the task's transaction, when the read returns.
 */
export function buildTaskGraph(topology: TaskTopology, sub: SubTopology, parts: TaskGraphParts): StreamGraph {
  const members = new Set(sub.nodes.map((n) => n.id));
  const copies = new Map<number, Transformation>();
  let repartitionInput: Transformation | undefined = undefined;

  const inputSource = (name: string, strategy: Transformation['watermarkStrategy']): Transformation => {
    const t = new Transformation('source', name, []);
    t.source = parts.input;
    t.watermarkStrategy = strategy;
    t.parallelism = 1;
    t.operatorFactory = () => new SourceOperator(parts.input, strategy, parts.emission);
    return t;
  };
  const fromTopic = (topic: RepartitionTopicPlan): Transformation => {
    if (repartitionInput === undefined) {
      // The merged watermark comes from the topic's markers: no strategy.
      repartitionInput = inputSource(topic.name, undefined);
      repartitionInput.uid = `${topic.name}-input`;
      repartitionInput.maxParallelism = topic.maxParallelism;
    }
    return repartitionInput;
  };
  const withSide = (input: Transformation, edge: StreamEdge): Transformation => {
    if (edge.sideTag === undefined) return input;
    const side = new Transformation('side-output', `${edge.source.name} (side output)`, [input]);
    side.sideTag = edge.sideTag;
    return side;
  };
  const copy = (node: StreamNode): Transformation => {
    const done = copies.get(node.id);
    if (done !== undefined) return done;
    const original = node.transformation;
    const inputs: Transformation[] = [];
    for (let i = 0; i < original.inputs.length; i++) {
      const edges = node.inputs.filter((e) => e.inputIndex === i);
      const feeds = edges
        .filter((e) => e.partitioning.kind === 'forward' && members.has(e.source.id))
        .map((e) => withSide(copy(e.source), e));
      const topic = topology.repartitionTopics.find((t) => t.target === node && t.inputIndex === i);
      if (topic !== undefined) feeds.push(fromTopic(topic));
      inputs.push(
        feeds.length === 1 ? feeds[0]! : new Transformation('union', `${node.name} (inputs)`, feeds),
      );
    }
    let t: Transformation;
    if (original.kind === 'source') {
      t = inputSource(node.name, original.watermarkStrategy);
    } else {
      t = new Transformation(original.kind, node.name, inputs);
      t.keySelectors = original.keySelectors;
      t.operatorFactory = original.operatorFactory;
      t.outputType = original.outputType;
      t.isCep = original.isCep;
      if (original.kind === 'sink') {
        const sink = parts.sink(node);
        t.sink = sink;
        if (sink !== original.sink) t.operatorFactory = () => new SinkOperator(sink);
      }
    }
    t.uid = node.uid;
    t.parallelism = 1;
    t.maxParallelism = node.maxParallelism;
    copies.set(node.id, t);
    return t;
  };

  const sinks: Transformation[] = [];
  for (const node of sub.nodes) {
    if (node.transformation.kind === 'sink') sinks.push(copy(node));
    for (const edge of node.outputs) {
      const topic = topology.repartitionTopics.find((t) => t.edges.includes(edge));
      if (topic === undefined) continue;
      const sink = parts.repartitionSink(topic, edge);
      const t = new Transformation('sink', `${node.name} -> ${topic.name}`, [withSide(copy(node), edge)]);
      t.uid = `${node.uid}-to-${topic.name}`;
      t.parallelism = 1;
      t.maxParallelism = node.maxParallelism;
      t.sink = sink;
      t.operatorFactory = () =>
        sink instanceof TaskRepartitionSink ? new TaskRepartitionSinkOperator(sink) : new SinkOperator(sink);
      sinks.push(t);
    }
  }
  return new StreamGraph(sinks, { defaultParallelism: 1 });
}
