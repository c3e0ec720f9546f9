// How state values become bytes for snapshots and durable backends.
import { deserialize, serialize } from 'node:v8';

/**
 * Turns values into bytes and back. State and timers are kept as live objects in the heap backend and only
 * pass through a serializer when a snapshot is taken or a durable backend stores them.
 */
export interface TypeSerializer<T> {
  serialize(value: T): Uint8Array;
  deserialize(bytes: Uint8Array): T;
}

/**
 * The default serializer: V8's structured clone, which handles primitives, bigints, plain objects, arrays,
 * Maps, Sets, Dates and typed arrays. Class instances come back as plain objects; give a descriptor its own
 * serializer to restore a class.
 */
export const structuredCloneSerializer: TypeSerializer<any> = {
  serialize: (value) => serialize(value),
  deserialize: (bytes) => deserialize(bytes),
};

/** A class whose instances state holds. */
export type StateClass<T> = abstract new (...args: never[]) => T;

/** Prototypes structured clone restores itself, so values of these types need no class serializer. */
const CLONEABLE_PROTOTYPES = new Set<object | null>([
  null,
  Object.prototype,
  Array.prototype,
  Map.prototype,
  Set.prototype,
  Date.prototype,
  RegExp.prototype,
  ArrayBuffer.prototype,
  DataView.prototype,
  Error.prototype,
]);

/** A class instance that structured clone would turn into a plain object: its class and where it sits. */
export interface LostClass {
  readonly className: string;
  /** Where in the value: '' for the value itself (or a list's element, a map's value), '.driver' for a field. */
  readonly path: string;
}

/** How deep into fields the check looks: deep enough for records of records, bounded for large graphs. */
const MAX_CHECK_DEPTH = 4;

/**
 * The first class instance in `value` that structured clone would turn into a plain object, or undefined. Looks
 * at the value, the first element of an array or Set, the first value of a Map, and the fields of plain objects
 * and of instances of `declared` (the class a serializer restores), a few levels deep: a state holds one type,
 * so one value shows what all hold. Cost: one walk of one value per state and snapshot.
 */
export function lostClassOf(value: unknown, declared?: StateClass<unknown>): LostClass | undefined {
  return findLostClass(value, declared?.prototype as object | undefined, '', 0);
}

function findLostClass(
  value: unknown,
  declared: object | undefined,
  path: string,
  depth: number,
): LostClass | undefined {
  if (value === null || typeof value !== 'object' || depth > MAX_CHECK_DEPTH) return undefined;
  // The elements of a list and the values of a map at the top are what a descriptor's `type` covers.
  if (Array.isArray(value)) {
    const at = depth === 0 ? path : `${path}[0]`;
    return value.length > 0 ? findLostClass(value[0], declared, at, depth + 1) : undefined;
  }
  if (value instanceof Map || value instanceof Set) {
    const at = depth === 0 ? path : `${path}[…]`;
    for (const v of value.values()) return findLostClass(v, declared, at, depth + 1);
    return undefined;
  }
  const proto = Object.getPrototypeOf(value) as object | null;
  const fields =
    proto === Object.prototype || proto === null || (declared !== undefined && proto === declared);
  if (!fields) {
    if (CLONEABLE_PROTOTYPES.has(proto) || ArrayBuffer.isView(value)) return undefined;
    return {
      className: (proto as { constructor?: { name?: string } }).constructor?.name || 'an anonymous class',
      path,
    };
  }
  for (const key of Object.keys(value)) {
    const lost = findLostClass(
      (value as Record<string, unknown>)[key],
      declared,
      `${path}.${key}`,
      depth + 1,
    );
    if (lost !== undefined) return lost;
  }
  return undefined;
}

/** True when `value` shows nothing of its type yet (undefined, an empty list or map). */
export function isEmptySample(value: unknown): boolean {
  return (
    value === undefined ||
    (Array.isArray(value) && value.length === 0) ||
    (value instanceof Map && value.size === 0)
  );
}

/** The class a serializer made by {@link classSerializer} restores. */
export function declaredClassOf(serializer: TypeSerializer<unknown>): StateClass<unknown> | undefined {
  return (serializer as { stateClass?: StateClass<unknown> }).stateClass;
}

/**
 * A serializer that restores instances of `type` (their own fields go through structured clone, then get the
 * class's prototype back; the constructor is not called). It applies to the value of a ValueState, Reducing- or
 * AggregatingState, each element of a ListState and each value of a MapState. Fields that hold other class
 * instances need a serializer of their own (write one with `serialize`/`deserialize`).
 */
export function classSerializer<T>(
  type: StateClass<T>,
): TypeSerializer<any> & { readonly stateClass: StateClass<T> } {
  const revive = (fields: unknown): unknown =>
    fields === null || typeof fields !== 'object'
      ? fields
      : Object.assign(Object.create(type.prototype as object) as object, fields);
  const plain = (value: unknown): unknown => (value instanceof type ? { ...(value as object) } : value);
  return {
    stateClass: type,
    serialize(value: unknown): Uint8Array {
      if (Array.isArray(value)) return serialize({ list: value.map(plain) });
      if (value instanceof Map) return serialize({ map: [...value].map(([k, v]) => [k, plain(v)]) });
      return serialize({ value: plain(value) });
    },
    deserialize(bytes: Uint8Array): unknown {
      const data = deserialize(bytes) as { list?: unknown[]; map?: [unknown, unknown][]; value?: unknown };
      if (data.list !== undefined) return data.list.map(revive);
      if (data.map !== undefined) return new Map(data.map.map(([k, v]) => [k, revive(v)]));
      return revive(data.value);
    },
  };
}
