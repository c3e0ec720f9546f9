// Which field of a record an aggregation reads and writes: compile-time field types and a copying field writer.

/** Values `sum` adds (as Flink's SumAggregator: numbers, or bigints for 64-bit counters). */
export type Numeric = number | bigint;

/** Values `min`, `max`, `minBy` and `maxBy` compare (Flink: any Comparable; here numbers, bigints and strings). */
export type Comparable = number | bigint | string;

/**
 * The fields of `T` whose type is `V`: property names of an object type, element indices of a tuple type, or any
 * index of an array of `V`. Optional fields are excluded (an absent field has nothing to aggregate).
 *
 * @example
 * type F = FieldOf<{ id: string; price: number; qty?: number }, Numeric>; // 'price'
 * type I = FieldOf<[string, number, bigint], Numeric>;                    // 1 | 2
 */
export type FieldOf<T, V> = T extends readonly unknown[]
  ? number extends T['length']
    ? T[number] extends V
      ? number
      : never
    : TupleIndexOf<T, V>
  : T extends object
    ? { [K in keyof T]: T[K] extends V ? K : never }[keyof T] & (string | number)
    : never;

export type TupleIndexOf<T extends readonly unknown[], V> = {
  [I in keyof T]: T[I] extends V ? (I extends `${infer N extends number}` ? N : never) : never;
}[number];

/** A numeric field of `T`, accepted by `sum`. */
export type NumericField<T> = FieldOf<T, Numeric>;

/** A comparable field of `T`, accepted by `min`, `max`, `minBy` and `maxBy`. */
export type ComparableField<T> = FieldOf<T, Comparable>;

/**
 * A copy of `record` with `field` set to `value`. The reduced value of a keyed aggregation is also the record
 * emitted downstream, so it must never be mutated once emitted (Flink copies through its serializers); arrays
 * stay arrays and class instances keep their prototype.
 */
export function withField<T>(record: T, field: string | number, value: unknown): T {
  if (Array.isArray(record)) {
    const copy = record.slice();
    copy[field as number] = value;
    return copy as T;
  }
  const proto = Object.getPrototypeOf(record) as object | null;
  const copy =
    proto === Object.prototype
      ? { ...(record as object) }
      : Object.assign(Object.create(proto) as object, record as object);
  (copy as Record<string | number, unknown>)[field] = value;
  return copy as T;
}

/** Reads `field` of `record`, failing with a message that names the aggregation and the field. */
export function readField(
  record: unknown,
  field: string | number,
  aggregation: string,
  accepts: (value: unknown) => boolean,
  expected: string,
): unknown {
  if (record === null || typeof record !== 'object') {
    throw new TypeError(
      `${aggregation}(${JSON.stringify(field)}): the record is not an object or array (got ${describeValue(record)})`,
    );
  }
  const value = (record as Record<string | number, unknown>)[field];
  if (!accepts(value)) {
    throw new TypeError(
      `${aggregation}(${JSON.stringify(field)}): field ${JSON.stringify(field)} must be ${expected}, got ${describeValue(value)}`,
    );
  }
  return value;
}

/** Checks at job-build time that a field argument is a property name or an index. */
export function checkFieldArgument(field: unknown, aggregation: string): void {
  if (typeof field === 'string' ? field.length === 0 : !Number.isInteger(field) || (field as number) < 0) {
    throw new TypeError(`${aggregation}() needs a field name or a tuple index, got ${describeValue(field)}`);
  }
}

export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (typeof value === 'bigint') return `bigint ${value}n`;
  if (value === null) return 'null';
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object';
  return `${typeof value} ${String(value)}`;
}
