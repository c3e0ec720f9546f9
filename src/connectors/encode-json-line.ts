// encodeJsonLine: one record as one JSON Lines line, the encoding of FileSink.jsonLines.

/**
 * `JSON.stringify(value)` and a newline; `bigint` values (which JSON.stringify rejects) become decimal strings,
 * `undefined` becomes `null`. The replacer only runs for the rare record holding a bigint: it makes stringify
 * several times slower.
 */
export function encodeJsonLine(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  }
  return (text ?? 'null') + '\n';
}
