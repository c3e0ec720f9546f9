// ReusedBuffer: one growable byte buffer handing out exact-length views, so LMDB keys and values cost no allocation.

/** Views cached per length up to this many bytes (entry keys and small values); longer ones are made per call. */
const CACHED_VIEW_LENGTHS = 512;

/**
 * A scratch buffer for bytes LMDB copies before the call returns: the key of a read (lmdb-js copies it into its
 * own key buffer) and the key and value of a put inside a synchronous write transaction (copied into the page).
 * `view(n)` returns the same Buffer object for the same length until the buffer grows, so the miss path and the
 * write-back allocate nothing per entry.
 */
export class ReusedBuffer {
  private bytes: Buffer;
  private views: (Buffer | undefined)[] = [];

  constructor(size: number) {
    this.bytes = Buffer.allocUnsafeSlow(size);
  }

  /** The buffer, at least `size` bytes long; growing it drops its contents and the views handed out. */
  reserve(size: number): Buffer {
    if (size > this.bytes.length) {
      // Stryker disable next-line MethodExpression,ArithmeticOperator: the doubling only saves regrowth; any size from `size` up serves
      this.bytes = Buffer.allocUnsafeSlow(Math.max(size, 2 * this.bytes.length));
      // Stryker disable next-line ArrayDeclaration: views are cached by length, and no entry key or value has length 0
      this.views = [];
    }
    return this.bytes;
  }

  /** The first `length` bytes of the buffer. */
  view(length: number): Buffer {
    if (length > CACHED_VIEW_LENGTHS) return this.bytes.subarray(0, length);
    return (this.views[length] ??= this.bytes.subarray(0, length));
  }
}
