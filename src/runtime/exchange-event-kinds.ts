// The kinds of event a batch between threads carries, in both encodings (msgpackr and typed record batches).

/** A record with its timestamp. */
export const RECORD = 0;
/** A watermark. */
export const WATERMARK = 1;
/** The producer became idle (true) or active again (false). */
export const STATUS = 2;
/** The producer's end of input. */
export const END = 3;
/** A checkpoint barrier. */
export const BARRIER = 4;
