// Time: readable durations in milliseconds, as Flink's Time / Duration helpers.

/**
 * Durations in milliseconds. Weir takes plain millisecond numbers everywhere; these helpers only make them
 * readable.
 *
 * @example
 * TumblingEventTimeWindows.of(Time.minutes(1))
 */
export const Time = {
  milliseconds: (n: number): number => n,
  seconds: (n: number): number => n * 1000,
  minutes: (n: number): number => n * 60_000,
  hours: (n: number): number => n * 3_600_000,
  days: (n: number): number => n * 86_400_000,
} as const;
