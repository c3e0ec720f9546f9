// CEP: the entry point that applies a pattern to a stream (Flink's CEP class).
import type { DataStream } from './data-stream.ts';
import { ConfigurationError } from '../core/errors.ts';
import type { EventComparator } from '../cep/operator/cep-operator.ts';
import { Pattern, type PatternMatch } from '../cep/pattern/pattern.ts';
import { PatternStream } from './pattern-stream.ts';

/**
 * Applies patterns to streams. On a keyed stream every key is matched on its own (in parallel); on a non-keyed
 * stream all elements are matched together by one subtask.
 *
 * @example
 * const p = Pattern.begin<Tx, 'small'>('small').where((t) => t.amount < 1)
 *   .next('large').where((t) => t.amount > 500).within(Time.minutes(1));
 * CEP.pattern(tx.keyBy((t) => t.card), p).select((m) => m.large[0]!);
 */
export const CEP = {
  /**
   * @param comparator orders elements with equal timestamps (ties keep arrival order)
   */
  pattern<T, P extends Pattern<T, any, any, any>>(
    input: DataStream<T>,
    pattern: P,
    comparator?: EventComparator<T>,
  ): PatternStream<T, PatternMatch<P>> {
    if (!(pattern instanceof Pattern)) throw new ConfigurationError('CEP.pattern needs a Pattern');
    if (comparator !== undefined && typeof comparator !== 'function') {
      throw new ConfigurationError('CEP.pattern: the comparator must be a function (a, b) => number');
    }
    return new PatternStream<T, PatternMatch<P>>(input, pattern, {
      comparator,
      lateDataOutputTag: undefined,
      processingTime: false,
    });
  },
} as const;
