// TaggedUnionType: the declared type of a window join's or coGroup's union elements, when both inputs declare theirs.
import type { RecordType } from './record-type.ts';

/**
 * The elements `{ input: 1, value }` and `{ input: 2, value }` of a window join's or coGroup's union, when both
 * inputs declare their record types (`returns`), as Flink's `CoGroupedStreams.UnionSerializer` writes a tag and then
 * the element with its input's serializer. In worker mode they then cross threads typed, as the tag and the value's
 * fields written by its input's type, instead of through msgpackr (the wrapper object itself declares nothing). A
 * typed batch has one stride per channel, so an element takes the tag, then the numeric fields of the input with more
 * of them, and as many strings as the input with more of them (the other input's elements pad with empty strings).
 * Not part of the public API: the join sets it on its two tagging operators.
 */
export class TaggedUnionType {
  /** The tag and the larger input's numeric fields. */
  readonly numericFields: number;
  /** The larger input's string fields. */
  readonly stringFields: number;

  constructor(
    readonly first: RecordType<unknown>,
    readonly second: RecordType<unknown>,
  ) {
    this.numericFields = 1 + Math.max(first.numericFields, second.numericFields);
    this.stringFields = Math.max(first.stringFields, second.stringFields);
  }

  /** The type as text, for messages: `{input: 1, value: {id: number}} | {input: 2, value: {seller: number}}`. */
  describe(): string {
    return `{input: 1, value: ${this.first.describe()}} | {input: 2, value: ${this.second.describe()}}`;
  }
}

/** What a stream can declare about its records: a flat record type, or (internally) a join's tagged union of two. */
export type DeclaredType = RecordType<unknown> | TaggedUnionType;
