// TaggedUnion: one element of either input of a window join or coGroup, as they travel as one stream.

/**
 * An element of the first (`input: 1`) or the second (`input: 2`) input, as Flink's `CoGroupedStreams.TaggedUnion`.
 * A plain object, so window state holding it snapshots and restores without a registered class.
 */
export type TaggedUnion<T1, T2> =
  { readonly input: 1; readonly value: T1 } | { readonly input: 2; readonly value: T2 };
