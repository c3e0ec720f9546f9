// BroadcastStream: `stream.broadcast(descriptor...)`, a stream every subtask of the next operator receives whole.
import type { DataStream } from '../data-stream.ts';
import { ConfigurationError } from '../../core/errors.ts';
import { MapStateDescriptor } from '../../core/state-descriptor.ts';

/**
 * The result of `stream.broadcast(...descriptors)` (Flink's `BroadcastStream`): the stream's elements go to every
 * parallel subtask of the operator it is connected to, which keeps the broadcast states named by the descriptors.
 * It has no operations of its own: connect a stream to it with `other.connect(broadcastStream)`.
 *
 * @example
 * const rules = new MapStateDescriptor<string, Rule>('rules');
 * const ruleStream = env.fromSource(ruleSource, WatermarkStrategy.noWatermarks(), 'rules').broadcast(rules);
 * events.keyBy((e) => e.user).connect(ruleStream).process(new ApplyRules());
 */
export class BroadcastStream<T> {
  /** Marks broadcast streams for `connect`, which cannot import this class without a module cycle. */
  readonly isBroadcastStream = true as const;

  constructor(
    readonly input: DataStream<T>,
    readonly broadcastStateDescriptors: readonly MapStateDescriptor<any, any>[],
  ) {
    if (broadcastStateDescriptors.length === 0) {
      throw new ConfigurationError('broadcast(...) with state needs at least one MapStateDescriptor');
    }
    const names = new Set<string>();
    for (const d of broadcastStateDescriptors) {
      if (!(d instanceof MapStateDescriptor)) {
        throw new ConfigurationError('Broadcast state descriptors must be MapStateDescriptors');
      }
      if (names.has(d.name)) {
        throw new ConfigurationError(`Broadcast state '${d.name}' is declared twice in broadcast(...)`);
      }
      names.add(d.name);
    }
  }
}
