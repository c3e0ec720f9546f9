// WithinType: which two events a pattern's `within` interval is measured between (Flink's WithinType).

/**
 * - `FIRST_AND_LAST` (default): the whole match must fit in the interval, measured from its first event.
 * - `PREVIOUS_AND_CURRENT`: the gap between the event of the previous stage and the event of this stage.
 *
 * @example
 * Pattern.begin<Ev>('a').followedBy('b').within(Time.seconds(10), 'PREVIOUS_AND_CURRENT')
 */
export type WithinType = 'FIRST_AND_LAST' | 'PREVIOUS_AND_CURRENT';

/** The constants, for readers coming from Flink's `WithinType.FIRST_AND_LAST`. */
export const WithinType = {
  FIRST_AND_LAST: 'FIRST_AND_LAST',
  PREVIOUS_AND_CURRENT: 'PREVIOUS_AND_CURRENT',
} as const satisfies Record<WithinType, WithinType>;
