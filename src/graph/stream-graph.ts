// StreamGraph: the physical plan: operator nodes with resolved parallelism and the edges between them.
import { ConfigurationError } from '../core/errors.ts';
import type { OutputTag } from '../core/output-tag.ts';
import { checkParallelism, DEFAULT_MAX_PARALLELISM } from '../state/key-group-range.ts';
import type { Partitioning, Transformation } from './transformation.ts';

/** A physical node: a transformation that runs as `parallelism` subtasks. */
export interface StreamNode {
  readonly transformation: Transformation;
  readonly id: number;
  readonly name: string;
  /** Stable id for snapshots: the user's `uid()` or one derived from the node's position and name. */
  readonly uid: string;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly inputs: StreamEdge[];
  readonly outputs: StreamEdge[];
}

/** An edge from a producer to one input of a consumer, optionally carrying only one side output. */
export interface StreamEdge {
  readonly source: StreamNode;
  readonly target: StreamNode;
  /** 0 or 1: which input of a two-input operator. */
  readonly inputIndex: number;
  readonly partitioning: Partitioning;
  readonly sideTag: OutputTag<unknown> | undefined;
}

export interface GraphOptions {
  readonly defaultParallelism: number;
  readonly maxParallelism?: number;
}

/**
 * Turns the transformations reachable from the sinks into nodes and edges, resolving virtual transformations,
 * parallelism and partitioners, and validating what can be validated before running: parallelism bounds,
 * forward edges between different parallelisms, uid clashes and side-output tags whose ids clash.
 */
export class StreamGraph {
  readonly nodes: StreamNode[] = [];
  private readonly byTransformation = new Map<Transformation, StreamNode>();

  constructor(sinks: readonly Transformation[], options: GraphOptions) {
    const order: Transformation[] = [];
    const visiting = new Set<Transformation>();
    const visit = (t: Transformation): void => {
      if (this.byTransformation.has(t) || visiting.has(t)) return;
      visiting.add(t);
      for (const input of t.inputs) visit(input);
      if (!t.isVirtual && !order.includes(t)) order.push(t);
    };
    for (const sink of sinks) visit(sink);
    order.sort((a, b) => a.id - b.id);

    const uids = new Set<string>();
    order.forEach((t, index) => {
      const maxParallelism = t.maxParallelism ?? options.maxParallelism ?? DEFAULT_MAX_PARALLELISM;
      const parallelism = t.forceSingleParallelism
        ? 1
        : (t.parallelism ??
          (t.inheritInputParallelism && t.inputs.length > 0
            ? this.inputParallelism(t.inputs[0]!)
            : undefined) ??
          options.defaultParallelism);
      checkParallelism(t.name, parallelism, maxParallelism);
      const uid = t.uid ?? `${index}-${t.name}`;
      if (uids.has(uid))
        throw new ConfigurationError(`Two operators have the uid '${uid}'; uids must be unique in a job`);
      uids.add(uid);
      const node: StreamNode = {
        transformation: t,
        id: t.id,
        name: t.name,
        uid,
        parallelism,
        maxParallelism,
        inputs: [],
        outputs: [],
      };
      this.nodes.push(node);
      this.byTransformation.set(t, node);
    });

    const tags = new Map<string, OutputTag<unknown>>();
    for (const node of this.nodes) {
      node.transformation.inputs.forEach((input, inputIndex) => {
        for (const edge of this.resolve(input, { kind: 'auto' }, undefined)) {
          const source = edge.node;
          let partitioning = edge.partitioning;
          if (partitioning.kind === 'auto') {
            partitioning = { kind: source.parallelism === node.parallelism ? 'forward' : 'rebalance' };
          }
          if (partitioning.kind === 'forward' && source.parallelism !== node.parallelism) {
            throw new ConfigurationError(
              `Forward partitioning between '${source.name}' (parallelism ${source.parallelism}) and '${node.name}' (parallelism ${node.parallelism}) needs equal parallelism; use rebalance()`,
            );
          }
          if (edge.sideTag !== undefined) {
            const seen = tags.get(edge.sideTag.id);
            if (seen !== undefined && seen.typeName !== edge.sideTag.typeName) {
              throw new ConfigurationError(
                `Side output id '${edge.sideTag.id}' is used with two element types (${seen.typeName ?? 'unnamed'} and ${edge.sideTag.typeName ?? 'unnamed'})`,
              );
            }
            tags.set(edge.sideTag.id, edge.sideTag);
          }
          const streamEdge: StreamEdge = {
            source,
            target: node,
            inputIndex,
            partitioning,
            sideTag: edge.sideTag,
          };
          node.inputs.push(streamEdge);
          source.outputs.push(streamEdge);
        }
      });
    }
  }

  nodeOf(t: Transformation): StreamNode {
    const node = this.byTransformation.get(t);
    if (node === undefined) throw new ConfigurationError(`Operator '${t.name}' is not part of this job`);
    return node;
  }

  /** The parallelism of the physical producer(s) behind a transformation (the largest, behind a union). */
  private inputParallelism(t: Transformation): number {
    return Math.max(...this.resolve(t, { kind: 'auto' }, undefined).map((e) => e.node.parallelism));
  }

  /** The physical producers behind a (possibly virtual) transformation, with the partitioning and tag on the way. */
  private resolve(
    t: Transformation,
    partitioning: Partitioning,
    sideTag: OutputTag<unknown> | undefined,
  ): { node: StreamNode; partitioning: Partitioning; sideTag: OutputTag<unknown> | undefined }[] {
    switch (t.kind) {
      case 'partition':
        return this.resolve(t.inputs[0]!, t.partitioning!, sideTag);
      case 'side-output':
        if (sideTag !== undefined)
          throw new ConfigurationError('A side output of a side output is not possible');
        return this.resolve(t.inputs[0]!, partitioning, t.sideTag);
      case 'union':
        return t.inputs.flatMap((input) => this.resolve(input, partitioning, sideTag));
      default:
        return [{ node: this.nodeOf(t), partitioning, sideTag }];
    }
  }
}
