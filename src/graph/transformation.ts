// Transformation: one node of the logical job graph the DataStream API records, before it is made physical.
import type { KeySelector } from '../core/functions.ts';
import type { OutputTag } from '../core/output-tag.ts';
import type { DeclaredType } from '../core/tagged-union-type.ts';
import type { Sink } from '../core/sink.ts';
import type { Source } from '../core/source.ts';
import type { AbstractStreamOperator } from '../operators/stream-operator.ts';
import type { WatermarkStrategy } from '../time/watermark-strategy.ts';

/**
 * How records travel from a producer's subtasks to a consumer's: `forward` keeps subtask i → subtask i (same
 * parallelism, the edge chains), `hash` routes by key group, `rebalance` round-robin, `broadcast` to all,
 * `global` to subtask 0; `auto` is forward when parallelisms match and rebalance otherwise, as in Flink.
 */
export type PartitionerKind = 'auto' | 'forward' | 'hash' | 'rebalance' | 'broadcast' | 'global';

export interface Partitioning {
  readonly kind: PartitionerKind;
  readonly keySelector?: KeySelector<any, unknown>;
}

export type TransformationKind = 'source' | 'operator' | 'sink' | 'partition' | 'side-output' | 'union';

let nextId = 1;

/**
 * A logical node. Physical kinds (source, operator, sink) become subtasks; virtual kinds (partition, side-output,
 * union) only shape the edges of their consumers, as Flink's PartitionTransformation / SideOutputTransformation /
 * UnionTransformation do.
 */
export class Transformation {
  readonly id = nextId++;
  uid: string | undefined = undefined;
  /** undefined: the environment's default parallelism. */
  parallelism: number | undefined = undefined;
  maxParallelism: number | undefined = undefined;
  /** For operators: the key selector of each input when the operator is keyed. */
  keySelectors: (KeySelector<any, unknown> | undefined)[] = [];
  operatorFactory: (() => AbstractStreamOperator<any>) | undefined = undefined;
  partitioning: Partitioning | undefined = undefined;
  sideTag: OutputTag<unknown> | undefined = undefined;
  source: Source<any> | undefined = undefined;
  watermarkStrategy: WatermarkStrategy<any> | undefined = undefined;
  sink: Sink<any> | undefined = undefined;
  /** Operators that must run with parallelism 1 (non-keyed windowAll, the harness sink). */
  forceSingleParallelism = false;
  /**
   * Runs at the parallelism of its (first) input unless set explicitly, as Flink's
   * `assignTimestampsAndWatermarks` does: one generator per upstream subtask, on a forward edge.
   */
  inheritInputParallelism = false;
  /** A CEP operator: the REST API and the dashboard show its partial matches per key. */
  isCep = false;
  /**
   * The declared type of the main output's records (`returns`, or a join's tagged union of two declared inputs): how
   * they are written between threads.
   */
  outputType: DeclaredType | undefined = undefined;

  constructor(
    readonly kind: TransformationKind,
    public name: string,
    readonly inputs: readonly Transformation[],
  ) {}

  get isKeyed(): boolean {
    return this.keySelectors.some((k) => k !== undefined);
  }

  /**
   * Whether every source upstream of this node is bounded. A source without a Source object (a test harness
   * input, fed by hand) counts as unbounded.
   */
  get isBounded(): boolean {
    if (this.kind === 'source') return this.source?.boundedness === 'bounded';
    return this.inputs.length > 0 && this.inputs.every((input) => input.isBounded);
  }

  get isVirtual(): boolean {
    return this.kind === 'partition' || this.kind === 'side-output' || this.kind === 'union';
  }
}
