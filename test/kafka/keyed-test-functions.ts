// The keyed functions and the sink that the cluster-mode test job and the cluster failure test job share.
import {
  ValueStateDescriptor,
  type AggregateFunction,
  type Collector,
  type KeyedProcessContext,
  type KeyedProcessFunction,
  type RuntimeContext,
  type ValueState,
} from '../../src/index.ts';
import { DeliveryGuarantee, KafkaSink } from '../../src/connectors/kafka/index.ts';

/** Writes each record as `describe(record, count)`, with the running count of its key in keyed state. */
export class RunningCount<E> implements KeyedProcessFunction<string, E, string> {
  private count!: ValueState<number>;

  constructor(private readonly describe: (e: E, count: number) => string) {}

  open(ctx: RuntimeContext): void {
    this.count = ctx.getState(new ValueStateDescriptor<number>('count', { defaultValue: 0 }));
  }

  processElement(e: E, _ctx: KeyedProcessContext<string>, out: Collector<string>): void {
    const count = this.count.value()! + 1;
    this.count.update(count);
    out.collect(this.describe(e, count));
  }
}

interface WindowSum {
  key: string;
  first: number;
  count: number;
  sum: number;
}

/**
 * Counts and sums the ids of a key's records in one tumbling window of `windowMs`, written as
 * `W<key>:<window>:<count>:<sum>` where the window's number comes from its first id's event time.
 */
export function windowSum<E extends { readonly key: string; readonly id: number }>(
  msPerId: number,
  windowMs: number,
): AggregateFunction<E, WindowSum, string> {
  return {
    createAccumulator: (): WindowSum => ({ key: '', first: Infinity, count: 0, sum: 0 }),
    add: (e: E, acc: WindowSum) => {
      acc.key = e.key;
      acc.first = Math.min(acc.first, e.id);
      acc.count++;
      acc.sum += e.id;
      return acc;
    },
    getResult: (acc: WindowSum) =>
      `W${acc.key}:${Math.floor((acc.first * msPerId) / windowMs)}:${acc.count}:${acc.sum}`,
    merge: (a: WindowSum, b: WindowSum) => ({
      key: a.key,
      first: Math.min(a.first, b.first),
      count: a.count + b.count,
      sum: a.sum + b.sum,
    }),
  };
}

/**
 * An exactly-once sink of lines into `output`, each keyed by what precedes its first ':'. One transactional id
 * prefix per sink operator (`name`) in a single-process run: two sinks sharing one would fence each other; in the
 * cluster every sink writes into its task's transaction instead.
 */
export function lineSink(bootstrapServers: string, output: string, name: string): KafkaSink<string> {
  return KafkaSink.builder<string>()
    .setBootstrapServers(bootstrapServers)
    .setTopic(output)
    .setRecordSerializer((line) => ({ key: line.slice(0, line.indexOf(':')), value: line }))
    .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
    .setTransactionalIdPrefix(`${output}-reference-${name}`)
    .build();
}
