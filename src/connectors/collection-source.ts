// CollectionSource: a bounded source over an in-memory iterable (fromElements / fromCollection).
import type { PollResult, ReaderOutput, Source, SourceReader, SourceReaderContext } from '../core/source.ts';

const BATCH = 1024;

/**
 * Emits the elements of an iterable in order. Like Flink's `fromElements`, it runs with parallelism 1 and its
 * records carry no timestamp (assign them with a WatermarkStrategy). Its position is the number of elements
 * emitted, so a restored job resumes where it stopped.
 */
export class CollectionSource<T> implements Source<T> {
  readonly boundedness = 'bounded' as const;
  constructor(private readonly elements: Iterable<T>) {}

  createReader(context: SourceReaderContext): SourceReader<T> {
    return new CollectionReader(context.subtaskIndex === 0 ? this.elements : []);
  }
}

class CollectionReader<T> implements SourceReader<T> {
  private iterator: Iterator<T> | undefined = undefined;
  private emitted = 0;
  private skip = 0;

  constructor(private readonly elements: Iterable<T>) {}

  pollNext(output: ReaderOutput<T>): PollResult {
    if (this.iterator === undefined) {
      this.iterator = this.elements[Symbol.iterator]();
      for (; this.skip > 0; this.skip--) if (this.iterator.next().done) return 'end';
    }
    for (let i = 0; i < BATCH; i++) {
      const next = this.iterator.next();
      if (next.done) return 'end';
      this.emitted++;
      output.collect(next.value);
    }
    return 'more';
  }

  snapshotPosition(): unknown {
    return this.emitted;
  }

  restorePosition(position: unknown): void {
    this.skip = this.emitted = Number(position);
  }
}
