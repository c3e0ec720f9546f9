// CollectionSource: a bounded source over an in-memory iterable (fromElements / fromCollection).
import type {
  PollResult,
  ReaderOutput,
  Source,
  SourceReader,
  SourceReaderContext,
  SplitEnumerator,
} from '../core/source.ts';
import { checkSequenceSplit, type SequenceSplit } from './sequence-split.ts';

const BATCH = 1024;

/**
 * Emits the elements of an iterable in order. Like Flink's `fromElements`, it runs with parallelism 1 and its
 * records carry no timestamp (assign them with a WatermarkStrategy). The collection is one split, checkpointed
 * with the number of elements emitted, so a restored job resumes where it stopped, at any parallelism.
 */
export class CollectionSource<T> implements Source<T, SequenceSplit> {
  readonly boundedness = 'bounded' as const;
  constructor(private readonly elements: Iterable<T>) {}

  createEnumerator(): SplitEnumerator<SequenceSplit> {
    return { initialSplits: () => [{ emitted: 0 }] };
  }

  createReader(context: SourceReaderContext): SourceReader<T, SequenceSplit> {
    return new CollectionReader(this.elements, context.sourceName);
  }
}

class CollectionReader<T> implements SourceReader<T, SequenceSplit> {
  private iterator: Iterator<T> | undefined = undefined;
  private owned = false;
  private finished = false;
  private emitted = 0;
  private skip = 0;

  constructor(
    private readonly elements: Iterable<T>,
    private readonly sourceName: string,
  ) {}

  addSplits(splits: SequenceSplit[]): void {
    for (const split of splits) {
      this.skip = this.emitted = checkSequenceSplit(split, this.sourceName).emitted;
      this.owned = true;
    }
  }

  pollNext(output: ReaderOutput<T>): PollResult {
    if (!this.owned) return 'end';
    if (this.iterator === undefined) {
      this.iterator = this.elements[Symbol.iterator]();
      for (; this.skip > 0; this.skip--) if (this.iterator.next().done) return this.finish();
    }
    for (let i = 0; i < BATCH; i++) {
      const next = this.iterator.next();
      if (next.done) return this.finish();
      this.emitted++;
      output.collect(next.value);
    }
    return 'more';
  }

  private finish(): PollResult {
    this.finished = true;
    return 'end';
  }

  /** The collection as one split with the number of elements emitted, until it is finished. */
  snapshotState(): SequenceSplit[] {
    return this.owned && !this.finished ? [{ emitted: this.emitted }] : [];
  }
}
