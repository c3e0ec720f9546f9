// DeweyNumber: the versions that tell which shared-buffer edges belong to which partial match (Flink's DeweyNumber).

/**
 * A Dewey number such as `1.0.2`, stored as a plain array so it survives snapshots as data. A partial match
 * carries one; every edge it adds to the shared buffer is stamped with it, and extraction follows only edges whose
 * version is compatible, so partial matches that share a prefix still read back only their own path (the SASE
 * paper's versioned shared buffer).
 */
export type DeweyNumber = readonly number[];

/** The version of a fresh start state (`new DeweyNumber(1)`). */
export const START_VERSION: DeweyNumber = [1];

/** A copy with the last digit increased by `times` (Flink's `increase(int)`). */
export function increase(version: DeweyNumber, times = 1): DeweyNumber {
  if (times === 0) return version;
  const next = version.slice();
  next[next.length - 1]! += times;
  return next;
}

/** A copy with a new stage `0` appended (Flink's `addStage()`). Allocated at its exact size. */
export function addStage(version: DeweyNumber): DeweyNumber {
  const n = version.length;
  // Stryker disable next-line ArrayDeclaration: an empty array grows to the same digits; the size only saves the growing
  const next = new Array<number>(n + 1);
  // Stryker disable next-line EqualityOperator: one more copy writes slot n, which is set to 0 right after
  for (let i = 0; i < n; i++) next[i] = version[i]!;
  next[n] = 0;
  return next;
}

/**
 * Whether `version` is compatible with `other` (Flink's `isCompatibleWith`): `other` is a proper prefix of
 * `version`, or both have the same length, equal leading digits and `version`'s last digit is at least `other`'s.
 */
export function isCompatibleWith(version: DeweyNumber, other: DeweyNumber): boolean {
  const n = version.length;
  const m = other.length;
  if (n > m) {
    for (let i = 0; i < m; i++) if (other[i] !== version[i]) return false;
    return true;
  }
  if (n === m) {
    const last = n - 1;
    for (let i = 0; i < last; i++) if (other[i] !== version[i]) return false;
    return version[last]! >= other[last]!;
  }
  return false;
}

export function deweyEquals(a: DeweyNumber, b: DeweyNumber): boolean {
  // Stryker disable next-line ConditionalExpression: the same array has equal digits; the check only skips the loop
  if (a === b) return true;
  if (a.length !== b.length) return false;
  // Stryker disable next-line EqualityOperator: one more step compares two undefined digits past the end, which are equal
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return false;
  }
  return true;
}
