// MalformedRecord: what a file source sends to its malformed-records side output instead of failing the job.

/**
 * A record a source could not parse or map, as sent to the side output named by the source's `malformed`
 * option. Plain data (no Error object), so it can be written to a dead-letter file or sent across threads.
 *
 * @example
 * const bad = new OutputTag<MalformedRecord>('bad-lines');
 * const events = env.fromSource(FileSource.jsonLines<Event>('in.jsonl', { malformed: bad }), undefined, 'events');
 * events.getSideOutput(bad).sinkTo(FileSink.jsonLines('bad.jsonl'));
 */
export interface MalformedRecord {
  /** The file, as the source was given it. */
  readonly file: string;
  /** The 1-based line the record starts on. */
  readonly line: number;
  /** The record's raw text (for CSV, as the parser saw it, possibly spanning lines). */
  readonly text: string;
  /** Why it was rejected: the parser's or the mapper's error message. */
  readonly error: string;
}
