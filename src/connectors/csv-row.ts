// The compile-time shape of CSV rows: column parsers and names give each field its type.

/** A column parser: the column's text in, the field's value out. */
export type CsvColumnParser<V = unknown> = (text: string) => V;

/** Column parsers by column name. */
export type CsvParsers = Readonly<Record<string, CsvColumnParser>>;

/** The fields the parsers produce, each typed by its parser's return type. */
export type ParsedColumns<P> = {
  -readonly [K in keyof P]: P[K] extends (text: string) => infer V ? V : never;
};

/**
 * A row as `FileSource.csv` yields it to `map` or downstream: parsed columns typed by their parsers; the other
 * columns strings when `columns` names them all (`as const` or a literal array), otherwise readable as `unknown`.
 *
 * @example
 * type R = CsvRow<{ price: NumberConstructor }, readonly ['sym', 'price']>; // { price: number; sym: string }
 */
export type CsvRow<P, C extends readonly string[]> = string extends C[number]
  ? keyof P extends never
    ? Record<string, string>
    : ParsedColumns<P> & { readonly [column: string]: unknown }
  : { [K in keyof P | Exclude<C[number], keyof P>]: K extends keyof P ? ParsedColumns<P>[K] : string };

/** Refuses parsers for columns that `columns` (when known at compile time) does not name. */
export type OnlyColumns<P, C extends readonly string[]> = string extends C[number]
  ? unknown
  : { [K in Exclude<keyof P, C[number]>]: never };

/** Parsers for the fields of a record type `T`: only its fields, each returning that field's type. */
export type CsvParsersFor<T> = { [K in keyof T]?: CsvColumnParser<T[K]> };

/** No column parsers: the default when none are given. */
export type NoParsers = Record<never, never>;
