// estimateSize: an approximate heap footprint of a record, for the bytes a blocked channel holds.

/** Nesting levels looked into; deeper values count as one reference. */
const MAX_DEPTH = 3;
/** Properties or elements looked at per object; the rest are counted at the average of those seen. */
const MAX_FIELDS = 32;

/**
 * Approximates the bytes `value` keeps alive on V8: 8 per number or reference, 2 per string character plus a
 * header, and 16 + 8 per field for objects and arrays, looking a few levels deep. It is an estimate for metrics and
 * buffer bounds, not an accounting: shared sub-objects are counted at each use, hidden-class sharing is ignored.
 * Only called for records that wait in a blocked channel, never on the unblocked record path.
 */
export function estimateSize(value: unknown, depth = 0): number {
  switch (typeof value) {
    case 'string':
      return 16 + value.length * 2;
    case 'bigint':
      return 16 + Math.ceil(value.toString(16).length / 2);
    case 'object': {
      if (value === null) return 8;
      if (depth >= MAX_DEPTH) return 8;
      if (ArrayBuffer.isView(value)) return 64 + value.byteLength;
      if (Array.isArray(value)) {
        const n = value.length;
        let sum = 0;
        const seen = Math.min(n, MAX_FIELDS);
        for (let i = 0; i < seen; i++) sum += estimateSize(value[i], depth + 1);
        return 16 + 8 * n + (seen === 0 ? 0 : Math.round((sum * n) / seen));
      }
      let fields = 0;
      let sum = 0;
      for (const key in value) {
        if (fields < MAX_FIELDS) sum += estimateSize((value as Record<string, unknown>)[key], depth + 1);
        fields++;
      }
      const seen = Math.min(fields, MAX_FIELDS);
      return 16 + 8 * fields + (seen === 0 ? 0 : Math.round((sum * fields) / seen));
    }
    default:
      // A number, boolean, undefined, symbol or function: one slot.
      return 8;
  }
}
