// RecordType: a declared shape of flat records (Flink's TypeInformation for a POJO), written field by field.

/** The kinds of field a flat record can declare. */
export type FieldType = 'number' | 'string' | 'boolean';

/** The TypeScript type a {@link FieldType} stands for. */
export type FieldValue<F extends FieldType> = F extends 'number'
  ? number
  : F extends 'string'
    ? string
    : boolean;

/** The record a set of declared fields describes. */
export type RecordOf<F extends Readonly<Record<string, FieldType>>> = { [K in keyof F]: FieldValue<F[K]> };

/**
 * The shape of a stream's records, declared with {@link Types.record} and attached with `stream.returns(type)`, as
 * Flink's `returns(TypeInformation)` declares a POJO type so that its records are written by a POJO serializer
 * instead of a generic one.
 *
 * What a declared type carries: plain objects whose own enumerable fields are exactly the declared ones, each a
 * `number` (any double, `-0` and `NaN` included), a `string` or a `boolean`. Records are checked where they are
 * written: on the edges between worker threads (worker mode), where they cross as numbers in a `Float64Array` and
 * strings in a list instead of through msgpackr. A record that is not a plain object, lacks a declared field, holds a
 * field of another type or holds a field that is not declared fails the job with a `RecordSerializationError` that
 * names the operator, the edge and the field: nothing is dropped or converted silently. On the other side the record
 * is a new plain object with the declared fields in declaration order (one hidden class for all of them). Nested
 * objects, arrays, `undefined`, `null`, bigints and class instances are not flat: leave such streams undeclared
 * (msgpackr carries them) or flatten them.
 *
 * @example
 * const Click = Types.record({ user: 'string', page: 'number', ts: 'number', premium: 'boolean' });
 * env.fromSource(clicks, strategy, 'clicks').returns(Click).keyBy((c) => c.user);
 */
export class RecordType<T = Record<string, unknown>> {
  /** Only for the compiler: ties the type to its records (never set). */
  declare readonly __record?: T;
  /** The declared fields, in declaration order. */
  readonly fields: readonly { readonly name: string; readonly type: FieldType }[];
  /** How many fields are written as numbers (numbers and booleans). */
  readonly numericFields: number;
  /** How many fields are written as strings. */
  readonly stringFields: number;

  /** @internal Made by {@link Types.record}. */
  constructor(fields: Readonly<Record<string, FieldType>>) {
    const list: { name: string; type: FieldType }[] = [];
    for (const [name, type] of Object.entries(fields)) {
      if (type !== 'number' && type !== 'string' && type !== 'boolean') {
        throw new TypeError(
          `Types.record: field '${name}' has type ${JSON.stringify(type)}; a flat record's fields are 'number', 'string' or 'boolean'`,
        );
      }
      list.push({ name, type });
    }
    if (list.length === 0) throw new TypeError('Types.record needs at least one field');
    this.fields = list;
    this.stringFields = list.filter((f) => f.type === 'string').length;
    this.numericFields = list.length - this.stringFields;
  }

  /** The type as text, for the job plan and messages: `{id: number, user: string}`. */
  describe(): string {
    return `{${this.fields.map((f) => `${f.name}: ${f.type}`).join(', ')}}`;
  }
}

/**
 * Declares record types for `stream.returns(...)` (Flink's `Types`).
 *
 * @example
 * const Event = Types.record({ id: 'number', key: 'number', value: 'number', ts: 'number' });
 */
export const Types = {
  /**
   * A flat record type: plain objects with exactly these fields.
   *
   * On a hot path prefer {@link Types.recordFromPairs}: V8 gives plain objects with the same keys in the same order
   * one hidden class, so a literal `{ id: 'number', ts: 'number' }` shares it with the records `{ id, ts }`, and its
   * strings make every record's number fields boxed (a heap number allocated per field written). The records and
   * results are the same either way; see docs/performance.md, "The events' hidden classes".
   */
  record<const F extends Readonly<Record<string, FieldType>>>(fields: F): RecordType<RecordOf<F>> {
    return new RecordType<RecordOf<F>>(fields);
  },

  /**
   * The same type as {@link Types.record}, its fields given as (name, type) pairs in order:
   * `Types.recordFromPairs(['id', 'number'], ['ts', 'number'])`. The fields are gathered on a null-prototype object,
   * which shares no hidden class with the records, so declaring the type leaves the records' layout as V8 would
   * choose it without the declaration.
   */
  recordFromPairs<const P extends readonly (readonly [string, FieldType])[]>(
    ...pairs: P
  ): RecordType<{ [F in P[number] as F[0]]: FieldValue<F[1]> }> {
    const fields = Object.create(null) as Record<string, FieldType>;
    for (const [name, type] of pairs) {
      if (Object.hasOwn(fields, name))
        throw new TypeError(`Types.recordFromPairs: field '${name}' is given twice`);
      fields[name] = type;
    }
    return new RecordType(fields);
  },
};
