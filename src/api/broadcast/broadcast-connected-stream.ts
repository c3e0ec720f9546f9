// BroadcastConnectedStream: `stream.connect(broadcastStream)`, processed by a (Keyed)BroadcastProcessFunction.
import { rejectAsyncFunction } from '../../core/async-function-guard.ts';
import { DataStream } from '../data-stream.ts';
import { ConfigurationError } from '../../core/errors.ts';
import type { FunctionObject, KeySelector } from '../../core/functions.ts';
import type { KeyedStream } from '../keyed-stream.ts';
import { Transformation } from '../../graph/transformation.ts';
import { CoBroadcastOperator } from '../../operators/co-broadcast-operator.ts';
import type { BroadcastStream } from './broadcast-stream.ts';
import type {
  BroadcastProcessFunction,
  KeyedBroadcastProcessFunction,
} from '../../core/broadcast-process-function.ts';

/**
 * A stream connected to a broadcast stream (Flink's `BroadcastConnectedStream`). `process` takes a
 * KeyedBroadcastProcessFunction when the non-broadcast stream is keyed, a BroadcastProcessFunction otherwise.
 */
export class BroadcastConnectedStream<IN1, IN2, K = never> {
  constructor(
    readonly nonBroadcast: DataStream<IN1>,
    readonly broadcastStream: BroadcastStream<IN2>,
    private readonly keySelector: KeySelector<IN1, unknown> | undefined,
  ) {}

  /** Whether the non-broadcast side is keyed (then keyed state and timers are available to it). */
  get isKeyed(): boolean {
    return this.keySelector !== undefined;
  }

  /** Runs the function: `processElement` for the stream's elements, `processBroadcastElement` for the broadcast ones. */
  process<OUT, S extends object = Record<string, any>>(
    fn: FunctionObject<
      [K] extends [never]
        ? BroadcastProcessFunction<IN1, IN2, OUT>
        : KeyedBroadcastProcessFunction<K, IN1, IN2, OUT>,
      S
    >,
    name = this.isKeyed ? 'Co-Process-Broadcast-Keyed' : 'Co-Process-Broadcast',
  ): DataStream<OUT> {
    const f = fn as BroadcastProcessFunction<IN1, IN2, OUT> & { onTimer?: unknown };
    if (
      f === null ||
      typeof f !== 'object' ||
      typeof f.processElement !== 'function' ||
      typeof f.processBroadcastElement !== 'function'
    ) {
      throw new ConfigurationError(
        'process() on a broadcast connected stream needs processElement and processBroadcastElement',
      );
    }
    if (!this.isKeyed && typeof f.onTimer === 'function') {
      throw new ConfigurationError(
        `Operator '${name}': timers need a keyed stream; use stream.keyBy(...).connect(broadcastStream)`,
      );
    }
    rejectAsyncFunction(f, 'process()', name, ['processElement', 'processBroadcastElement', 'onTimer']);
    const descriptors = this.broadcastStream.broadcastStateDescriptors;
    const broadcastInput = this.broadcastStream.input.broadcast();
    const t = new Transformation('operator', name, [
      this.nonBroadcast.transformation,
      broadcastInput.transformation,
    ]);
    t.operatorFactory = () => new CoBroadcastOperator<IN1, IN2, OUT>(f, descriptors);
    // Only the first input is keyed: broadcast elements reach every subtask and have no key.
    if (this.keySelector !== undefined)
      t.keySelectors = [this.keySelector as KeySelector<any, unknown>, undefined];
    return new DataStream<OUT>(this.nonBroadcast.environment, t);
  }
}

/** @internal The connection `DataStream.connect` makes when given a broadcast stream. */
export function connectToBroadcast<IN1, IN2>(
  stream: DataStream<IN1>,
  broadcast: BroadcastStream<IN2>,
): BroadcastConnectedStream<IN1, IN2, any> {
  const keySelector = (stream as unknown as Partial<KeyedStream<IN1, unknown>>).keySelector;
  return new BroadcastConnectedStream<IN1, IN2, unknown>(stream, broadcast, keySelector);
}
