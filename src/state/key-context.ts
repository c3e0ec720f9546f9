// KeyContext: the current key of a keyed state backend, its normalised form and its key group.
import { noCurrentKey } from './keyed-state-backend.ts';
import { keyGroupFor, normalizeKey, type NormalizedKey } from './key-hash.ts';

/**
 * The current key every state handle and timer of one operator subtask reads and writes under (Flink's
 * `InternalKeyContext`). The runtime sets it before every record and every timer; the key group is computed only
 * when asked for (state writes and timer registrations), then cached until the key changes. Every backend
 * extends this class, so the key lives in one place and is read by a monomorphic field access.
 */
export class KeyContext {
  private currentKey: unknown = undefined;
  private currentNormalized: NormalizedKey = 0;
  /** Before the first key and after `clearCurrentKey`: state access fails until a key is set (Flink: "No key set"). */
  private keyless = true;
  /** The current key's group, or -1 until asked for. */
  private currentKeyGroup = -1;

  constructor(
    readonly maxParallelism: number,
    /** Names the operator in the error a keyless state access throws. */
    readonly operatorName: string | undefined,
  ) {}

  /** Sets the key every state handle now reads and writes. */
  setCurrentKey(key: unknown): void {
    this.currentKey = key;
    this.currentNormalized = normalizeKey(key);
    this.currentKeyGroup = -1;
    this.keyless = false;
  }

  /** Sets the current key from its normalised form (timers keep keys normalised, see key-hash.ts). */
  setCurrentNormalizedKey(normalized: NormalizedKey, key: unknown): void {
    this.currentKey = key;
    this.currentNormalized = normalized;
    this.currentKeyGroup = -1;
    this.keyless = false;
  }

  getCurrentKey(): unknown {
    return this.currentKey;
  }

  /**
   * Leaves the backend without a current key until the next `setCurrentKey`: state handles then fail instead of
   * reading the key set last (the broadcast side of a keyed broadcast operator has no key, as in Flink).
   */
  clearCurrentKey(): void {
    this.currentKey = undefined;
    this.keyless = true;
  }

  /** The normalised current key; throws an IllegalStateError after `clearCurrentKey`. */
  currentNormalizedKey(): NormalizedKey {
    if (this.keyless) throw noCurrentKey(this.operatorName);
    return this.currentNormalized;
  }

  /** The key group of the current key. */
  getCurrentKeyGroup(): number {
    if (this.currentKeyGroup < 0)
      this.currentKeyGroup = keyGroupFor(this.currentNormalized, this.maxParallelism);
    return this.currentKeyGroup;
  }
}
