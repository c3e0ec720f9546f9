// DeltaFunction: the distance between two elements, used by DeltaTrigger and DeltaEvictor.

/**
 * Computes how far apart two elements are, as Flink's `DeltaFunction`. {@link DeltaTrigger} fires when the
 * delta from the element of its last firing exceeds a threshold; {@link DeltaEvictor} evicts elements at least a
 * threshold away from the newest one.
 *
 * @example
 * const priceMove: DeltaFunction<Tick> = (a, b) => Math.abs(a.price - b.price);
 */
export type DeltaFunction<T> = (oldDataPoint: T, newDataPoint: T) => number;
