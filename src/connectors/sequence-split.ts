// SequenceSplit: a source read in one order from its start (a collection, an async iterable) as a single split.
import { ConfigurationError } from '../core/errors.ts';

/** The one split of a sequential source: how many items have been emitted (replayed past on restore). */
export interface SequenceSplit {
  readonly emitted: number;
}

/** Checks a split restored from a snapshot, naming the source when it is not one. */
export function checkSequenceSplit(split: unknown, sourceName: string): SequenceSplit {
  const emitted = (split as Partial<SequenceSplit> | undefined)?.emitted;
  if (!(Number.isSafeInteger(emitted) && emitted! >= 0)) {
    throw new ConfigurationError(
      `Source '${sourceName}': not a split: ${JSON.stringify(split)}; expected { emitted } with a count >= 0`,
    );
  }
  return split as SequenceSplit;
}
