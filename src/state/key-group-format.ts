// The key-group snapshot format every keyed state backend writes and reads, so savepoints move between backends.
import { deserialize, serialize } from 'node:v8';
import { IllegalStateError } from '../core/errors.ts';
import type { NormalizedKey } from './key-hash.ts';

/**
 * The key-group snapshot format, shared by every backend (savepoints move between them): `v8.serialize` of an
 * array with one {@link StateColumns} per state that has entries in the group. Format 2 stores each state in
 * columns so a key group costs one `v8.serialize`, not one per value: under the default (structured clone)
 * serializer, namespaces and values are stored as they are ("raw") and are cloned by that single call; under a
 * custom serializer, its bytes are packed into one buffer with end offsets.
 */
export interface StateColumns {
  name: string;
  kind: string;
  format: 2;
  /** Raw namespaces (default namespace serializer); otherwise `nsBytes`/`nsEnds` hold the serializer's bytes. */
  namespaces?: unknown[];
  nsBytes?: Uint8Array;
  nsEnds?: Uint32Array;
  /** Each namespace's lookup key (`NamespaceSerializer.key`), so entries can be keyed before their state is registered. */
  nsKeys?: (string | number)[];
  /** Per entry: the index of its namespace. */
  nsOf: Uint32Array;
  /** Per entry: the normalised key. */
  keys: NormalizedKey[];
  /** Raw values (default serializer); otherwise `valueBytes`/`valueEnds` hold the serializer's bytes. */
  values?: unknown[];
  valueBytes?: Uint8Array;
  valueEnds?: Uint32Array;
  /** Per entry: last access time (TTL); absent when no entry has one. */
  lastAccess?: Float64Array;
}

/** Columns waiting for their state to be registered, with the key group they came from. */
export interface PendingColumns {
  readonly keyGroup: number;
  readonly columns: StateColumns;
}

/** Packs byte arrays into one buffer plus end offsets (v8 serializes one buffer far faster than many). */
function pack(parts: Uint8Array[]): { bytes: Uint8Array; ends: Uint32Array } {
  const ends = new Uint32Array(parts.length);
  let at = 0;
  for (let i = 0; i < parts.length; i++) ends[i] = at += parts[i]!.byteLength;
  return { bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts, at), ends };
}

/** The `i`th of packed byte arrays (a view). */
export function unpacked(bytes: Uint8Array, ends: Uint32Array, i: number): Uint8Array {
  // For the first, `ends[-1]` is undefined, which subarray reads as 0.
  return bytes.subarray(ends[i - 1], ends[i]);
}

/** Builds one state's {@link StateColumns} of one key group, namespace by namespace. */
export class StateColumnsBuilder {
  private readonly namespaces: unknown[] = [];
  private readonly nsKeys: (string | number)[] = [];
  private readonly nsOf: number[] = [];
  private readonly keys: NormalizedKey[] = [];
  private readonly values: unknown[] = [];
  /** Created at the first entry with a last access time (TTL), back-filled with -1. */
  private lastAccess: number[] | undefined = undefined;
  /** The namespace added last (entries of one namespace arrive together), and its index. */
  private lastNs: unknown = undefined;
  private lastNsIndex = -1;

  constructor(
    readonly name: string,
    readonly kind: string,
    /** Whether namespaces are raw values (else serializer bytes). */
    private readonly rawNamespaces: boolean,
    /** Whether values are raw values (else serializer bytes). */
    private readonly rawValues: boolean,
  ) {}

  /**
   * Adds an entry. `namespace` (raw or bytes, by the builder's mode) is compared by identity with the previous
   * entry's: pass the same object for every entry of one namespace.
   */
  add(
    namespaceToken: unknown,
    namespace: unknown,
    nsKey: string | number,
    key: NormalizedKey,
    value: unknown,
    lastAccess: number,
  ): void {
    if (namespaceToken !== this.lastNs || this.lastNsIndex < 0) {
      this.lastNs = namespaceToken;
      this.lastNsIndex = this.namespaces.length;
      this.namespaces.push(namespace);
      this.nsKeys.push(nsKey);
    }
    this.nsOf.push(this.lastNsIndex);
    this.keys.push(key);
    this.values.push(value);
    if (this.lastAccess !== undefined) this.lastAccess.push(lastAccess);
    else if (lastAccess >= 0) {
      this.lastAccess = new Array<number>(this.keys.length - 1).fill(-1);
      this.lastAccess.push(lastAccess);
    }
  }

  get size(): number {
    return this.keys.length;
  }

  build(): StateColumns {
    const out: StateColumns = {
      name: this.name,
      kind: this.kind,
      format: 2,
      nsKeys: this.nsKeys,
      nsOf: Uint32Array.from(this.nsOf),
      keys: this.keys,
    };
    if (this.rawNamespaces) out.namespaces = this.namespaces;
    else {
      const { bytes, ends } = pack(this.namespaces as Uint8Array[]);
      out.nsBytes = bytes;
      out.nsEnds = ends;
    }
    if (this.rawValues) out.values = this.values;
    else {
      const { bytes, ends } = pack(this.values as Uint8Array[]);
      out.valueBytes = bytes;
      out.valueEnds = ends;
    }
    if (this.lastAccess !== undefined) out.lastAccess = Float64Array.from(this.lastAccess);
    return out;
  }
}

/** The namespaces of columns as values, deserializing packed bytes with `deserialize`. */
export function columnNamespaces(
  columns: StateColumns,
  deserialize: (bytes: Uint8Array) => unknown,
): unknown[] {
  if (columns.namespaces !== undefined) return columns.namespaces;
  const ends = columns.nsEnds!;
  // Stryker disable next-line ArrayDeclaration: the length only presizes the array
  const out: unknown[] = new Array(ends.length);
  for (let i = 0; i < ends.length; i++) out[i] = deserialize(unpacked(columns.nsBytes!, ends, i));
  return out;
}

/** One key group's bytes: `v8.serialize` of its states' columns. */
export function encodeKeyGroup(states: readonly StateColumns[]): Uint8Array {
  return new Uint8Array(serialize(states));
}

/**
 * The states' columns of one key group's bytes. Bytes of another format (an earlier, unreleased one, or not a key
 * group at all) fail with an error naming the key group and what was found, rather than restoring wrong state.
 */
export function decodeKeyGroup(keyGroup: number, bytes: Uint8Array): StateColumns[] {
  const states = deserialize(bytes) as unknown;
  if (!Array.isArray(states)) {
    throw new IllegalStateError(`Key group ${keyGroup}: the snapshot bytes are not a list of states`);
  }
  for (const state of states as Partial<StateColumns>[]) {
    if (state?.format !== 2) {
      throw new IllegalStateError(
        `Key group ${keyGroup}: state '${String(state?.name)}' is in snapshot format ${String(state?.format)}; this version reads format 2`,
      );
    }
  }
  return states as StateColumns[];
}
