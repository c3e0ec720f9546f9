// TypedRecordBatch: a batch of one channel's events written field by field into a Float64Array, for declared types.
import type { RecordType } from '../core/record-type.ts';
import { TaggedUnionType, type DeclaredType } from '../core/tagged-union-type.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import type { InputChannel } from './input-channel.ts';
import { BARRIER, END, RECORD, STATUS, WATERMARK } from './exchange-event-kinds.ts';
import { MIN_WATERMARK } from '../core/time-domain.ts';
import { keepBatchBuffer, takeKeptBatchBuffer } from './kept-batch-buffers.ts';

/** What a typed batch posts: numbers (transferred), and strings and barriers when it has any. */
export interface TypedBatchMessage {
  /**
   * The batch's numbers: the start of a buffer the batch wrote into and no longer owns. Its whole buffer is
   * transferred, and the consumer gives it back with the batch's credit (see {@link TypedRecordBatch.recycle}).
   */
  readonly numbers: Float64Array<ArrayBuffer>;
  readonly strings: string[] | undefined;
  readonly barriers: CheckpointBarrier[] | undefined;
}

/** Why a record does not fit its declared type: the field (undefined for the record itself) and what it holds. */
export interface FieldMismatch {
  readonly field: string | undefined;
  readonly problem: string;
}

/** Writes a record's fields at `offset` of `numbers` (and pushes its strings); returns false if it does not fit. */
type WriteRecord = (value: any, numbers: Float64Array, offset: number, strings: string[]) => boolean;
/** Builds a record from `numbers` at `offset` and `strings` at `s`. */
type ReadRecord = (
  numbers: Float64Array,
  offset: number,
  strings: string[] | undefined,
  s: number,
) => unknown;

/** The generated functions of one record type (generated once per type and thread). */
export interface RecordCodec {
  readonly write: WriteRecord;
  readonly read: ReadRecord;
}

const codecs = new WeakMap<DeclaredType, RecordCodec>();

/**
 * One function per record type, generated so that each field is a constant property access (V8 keeps the call site
 * monomorphic, as a hand-written serializer would be): Flink generates nothing, but its POJO serializer is a loop
 * over field serializers the JIT inlines; here the loop is unrolled into source.
 */
export function codecOf(type: DeclaredType): RecordCodec {
  let codec = codecs.get(type);
  // Stryker disable next-line ConditionalExpression: generating again gives the same functions; the cache saves the work
  if (codec !== undefined) return codec;
  codec = type instanceof TaggedUnionType ? unionCodec(type) : recordCodec(type);
  codecs.set(type, codec);
  return codec;
}

/**
 * A number read from the batch as the producer's own code would have held it: an integral number in int32 range as
 * that integer (V8 then stores a small integer), anything else (fractions, NaN, infinities, -0, larger integers) as
 * read, so every number still arrives exactly.
 *
 * V8 gives plain objects with the same keys in the same order one chain of hidden classes in a thread, whoever builds
 * them, and a field's representation (small integer, double, or tagged) is the chain's. A value read from a
 * `Float64Array` is a heap number in V8's interpreter even when integral, so records built from it as read would
 * turn the chain's integer fields into boxed doubles: a heap number per field of every record of that shape in the
 * thread, the producer's own included, and heap-number keys that send the keyed state's `Map` lookups down V8's
 * generic path. Returning the integer keeps each field as the producer's values make it, so the records read here
 * share the producer's hidden class and field layout. (An object of the shape with non-numbers in every field, made
 * before the first read, did it before: that kept integers small but made every field tagged, so the producer's
 * double fields, an event's time, allocated a heap number at every write: about 10 ns per event on the source's thread,
 * docs/performance.md, "The reader's records in the producer's hidden class".)
 */
const SMALL_INTEGER_OR_SELF = '(x | 0) === x && (x !== 0 || 1 / x > 0) ? x | 0 : x';

/** The generated functions of a flat record type. */
function recordCodec(type: RecordType<unknown>): RecordCodec {
  const fields = type.fields;
  // The prototype is checked after the fields are read: the reads check the record's hidden class, so V8's
  // optimising compiler knows it there and folds `Object.getPrototypeOf` into a constant; before them it called into
  // the runtime for every record (about a tenth of the producing thread's time in a keyBy exchange).
  const write: string[] = ['if (v === null || typeof v !== "object") return false;', 'let x;'];
  const read: string[] = [];
  let n = 0;
  let s = 0;
  for (const field of fields) {
    const key = JSON.stringify(field.name);
    write.push(`x = v[${key}];`);
    if (field.type === 'number') {
      write.push(`if (typeof x !== "number") return false; n[o + ${n}] = x;`);
      read.push(`${key}: (x = n[o + ${n++}], ${SMALL_INTEGER_OR_SELF})`);
    } else if (field.type === 'boolean') {
      write.push(`if (typeof x !== "boolean") return false; n[o + ${n}] = x ? 1 : 0;`);
      read.push(`${key}: n[o + ${n++}] !== 0`);
    } else {
      write.push(`if (typeof x !== "string") return false; t.push(x);`);
      read.push(`${key}: t[s + ${s++}]`);
    }
  }
  write.push('const p = Object.getPrototypeOf(v); if (p !== Object.prototype && p !== null) return false;');
  // Exactly the declared fields: one that is not declared would not arrive, so it is refused instead.
  write.push(`let k = 0; for (const _ in v) k++; return k === ${fields.length};`);
  return {
    write: new Function('v', 'n', 'o', 't', write.join('\n')) as WriteRecord,
    read: new Function('n', 'o', 't', 's', `let x; return { ${read.join(', ')} };`) as ReadRecord,
  };
}

/**
 * A join's union elements `{ input, value }`: the tag, then the value written by its input's codec, its strings padded
 * to the union's count (see {@link TaggedUnionType}). Read back as a new wrapper of the same shape for either input.
 */
function unionCodec(type: TaggedUnionType): RecordCodec {
  const first = codecOf(type.first);
  const second = codecOf(type.second);
  const write1 = first.write;
  const write2 = second.write;
  const read1 = first.read;
  const read2 = second.read;
  const pad1 = type.stringFields - type.first.stringFields;
  const pad2 = type.stringFields - type.second.stringFields;
  return {
    write(v, n, o, t) {
      if (v === null || typeof v !== 'object') return false;
      const input = v.input;
      if (input === 1) {
        if (!write1(v.value, n, o + 1, t)) return false;
        for (let i = 0; i < pad1; i++) t.push('');
      } else if (input === 2) {
        if (!write2(v.value, n, o + 1, t)) return false;
        for (let i = 0; i < pad2; i++) t.push('');
      } else return false;
      n[o] = input;
      const p = Object.getPrototypeOf(v);
      if (p !== Object.prototype && p !== null) return false;
      // Exactly `input` and `value`, as for a flat record's declared fields.
      let k = 0;
      for (const _ in v) k++;
      return k === 2;
    },
    read: (n, o, t, s) =>
      n[o] === 1 ? { input: 1, value: read1(n, o + 1, t, s) } : { input: 2, value: read2(n, o + 1, t, s) },
  };
}

/** Describes how `value` does not fit `type` (for the error message; off the hot path). */
export function describeMismatch(type: DeclaredType, value: unknown): FieldMismatch {
  if (value === null || typeof value !== 'object') {
    return { field: undefined, problem: `is ${describeValue(value)}, not an object` };
  }
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (prototype !== Object.prototype && prototype !== null) {
    const name = (prototype.constructor as { name?: string } | undefined)?.name ?? 'a class';
    return {
      field: undefined,
      problem: `is an instance of ${name}; a declared record type carries plain objects only`,
    };
  }
  if (type instanceof TaggedUnionType) return describeUnionMismatch(type, value);
  const record = value as Record<string, unknown>;
  for (const field of type.fields) {
    const held = record[field.name];
    if (typeof held !== field.type) {
      return {
        field: field.name,
        problem: `holds ${describeValue(held)} where ${type.describe()} declares ${field.type}`,
      };
    }
  }
  const declared = new Set(type.fields.map((f) => f.name));
  for (const key in record) {
    if (!declared.has(key)) {
      return { field: key, problem: `is not declared in ${type.describe()} (it would be lost)` };
    }
  }
  return { field: undefined, problem: 'does not fit its declared type' };
}

/** How a join's union element does not fit: its tag, its input's record (its field named under `value.`), its keys. */
function describeUnionMismatch(type: TaggedUnionType, value: object): FieldMismatch {
  const element = value as { input?: unknown; value?: unknown };
  if (element.input !== 1 && element.input !== 2) {
    return {
      field: 'input',
      problem: `holds ${describeValue(element.input)} where ${type.describe()} declares 1 or 2`,
    };
  }
  const inner = describeMismatch(element.input === 1 ? type.first : type.second, element.value);
  if (inner.problem !== 'does not fit its declared type') {
    return { field: inner.field === undefined ? 'value' : `value.${inner.field}`, problem: inner.problem };
  }
  for (const key in element) {
    if (key !== 'input' && key !== 'value') {
      return { field: key, problem: `is not declared in ${type.describe()} (it would be lost)` };
    }
  }
  return { field: undefined, problem: 'does not fit its declared type' };
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object';
  return `the ${typeof value} ${String(value)}`;
}

/**
 * The events of one channel's open batch, written as they come: a record is its kind, its timestamp and its numeric
 * fields (booleans as 0 or 1) in a Float64Array, its strings in a list; a watermark, idleness, the end of input or a
 * barrier is its kind and one number. Cost per record: one generated call (a type check and a store per field, a
 * count of the record's keys), no allocation. Per batch nothing is copied: the buffer written into is transferred
 * as it is, and the next batch is written into a buffer an earlier batch left in, once the consumer gave it back
 * ({@link recycle}); only while none has come back yet is a new one allocated. A new buffer per batch (200 kB at
 * 4,096 records of four numbers) cost the producing thread about 40 ns per record it sent, more than writing the
 * records (docs/performance.md, "One keyBy exchange between threads"). When the job's exchange closes, the batch's
 * buffers are kept for the thread's next job ({@link release}), which starts with them instead of new ones.
 */
export class TypedRecordBatch {
  private numbers: Float64Array<ArrayBuffer>;
  private used = 0;
  /** Buffers of earlier batches, given back by the consumer, to write the next batches into. */
  private readonly spare: Float64Array<ArrayBuffer>[] = [];
  private strings: string[] = [];
  private barriers: CheckpointBarrier[] = [];
  private readonly write: WriteRecord;
  private readonly stride: number;

  constructor(
    readonly type: DeclaredType,
    batchSize: number,
  ) {
    this.write = codecOf(type).write;
    this.stride = 2 + type.numericFields;
    this.numbers =
      takeKeptBatchBuffer(this.stride) ?? new Float64Array(Math.min(batchSize, 256) * this.stride);
  }

  /** Writes a record; returns false (and writes nothing that counts) when it does not fit the declared type. */
  record(value: unknown, timestamp: number): boolean {
    const at = this.used;
    if (at + this.stride > this.numbers.length) this.grow();
    const numbers = this.numbers;
    const strings = this.strings.length;
    if (!this.write(value, numbers, at + 2, this.strings)) {
      this.strings.length = strings;
      return false;
    }
    numbers[at] = RECORD;
    numbers[at + 1] = timestamp;
    this.used = at + this.stride;
    return true;
  }

  watermark(watermark: number): void {
    this.control(WATERMARK, watermark);
  }

  status(idle: boolean): void {
    this.control(STATUS, idle ? 1 : 0);
  }

  endOfInput(): void {
    this.control(END, 0);
  }

  barrier(barrier: CheckpointBarrier): void {
    this.control(BARRIER, this.barriers.length);
    this.barriers.push(barrier);
  }

  /**
   * The batch written so far, as a message that owns its buffer; the next batch starts empty, in a spare buffer as
   * large as this one, or a new one.
   */
  take(): TypedBatchMessage {
    const message: TypedBatchMessage = {
      numbers: this.numbers.subarray(0, this.used),
      strings: this.strings.length > 0 ? this.strings : undefined,
      barriers: this.barriers.length > 0 ? this.barriers : undefined,
    };
    const capacity = this.numbers.length;
    let next = this.spare.pop();
    // A spare smaller than the buffer the batches have grown to is left to the collector.
    while (next !== undefined && next.length < capacity) next = this.spare.pop();
    this.numbers = next ?? takeKeptBatchBuffer(capacity) ?? new Float64Array(capacity);
    this.used = 0;
    // New lists: the message holds the old ones (two small arrays per batch, none per record).
    this.strings = [];
    this.barriers = [];
    return message;
  }

  /**
   * The buffer of a batch this one sent, back from the consumer that read it: a later batch is written into it.
   * At most one buffer per batch in flight comes back, so the spares are bounded by the channel's credits; one
   * smaller than the batches have grown to since is dropped when {@link take} comes to it.
   */
  recycle(buffer: ArrayBuffer): void {
    this.spare.push(new Float64Array(buffer));
  }

  /**
   * The job's exchange closed: the open batch's buffer and the spares go to the thread's kept buffers, for a later
   * job's channels. The batch stays usable (with a small new buffer) but sends nothing more.
   */
  release(): void {
    keepBatchBuffer(this.numbers);
    for (const spare of this.spare) keepBatchBuffer(spare);
    this.spare.length = 0;
    this.numbers = new Float64Array(this.stride);
    this.used = 0;
  }

  private control(kind: number, value: number): void {
    if (this.used + 2 > this.numbers.length) this.grow();
    this.numbers[this.used] = kind;
    this.numbers[this.used + 1] = value;
    this.used += 2;
  }

  /**
   * Doubles the buffer. That always makes room for the next event: the first buffer holds at least one record's
   * stride (and a control event's two slots, since a stride is at least two), so no event needs more than the
   * buffer's length beyond what is used.
   */
  private grow(): void {
    const length = this.numbers.length * 2;
    const bigger = takeKeptBatchBuffer(length) ?? new Float64Array(length);
    bigger.set(this.numbers.subarray(0, this.used));
    this.numbers = bigger;
  }
}

/**
 * Replays a typed batch into the consumer's channel, in order, building each record as a new plain object; returns
 * the batch's last watermark (MIN_WATERMARK if it has none).
 */
export function deliverTypedBatch(
  type: DeclaredType,
  numbers: Float64Array,
  strings: string[] | undefined,
  barriers: CheckpointBarrier[] | undefined,
  channel: InputChannel,
): number {
  const read = codecOf(type).read;
  let watermark = MIN_WATERMARK;
  const stride = 2 + type.numericFields;
  const perRecord = type.stringFields;
  let s = 0;
  // Stryker disable next-line EqualityOperator: one step past the end reads undefined, which no case matches
  for (let i = 0; i < numbers.length;) {
    switch (numbers[i]) {
      case RECORD:
        channel.process(read(numbers, i + 2, strings, s), numbers[i + 1]!);
        s += perRecord;
        i += stride;
        continue;
      case WATERMARK:
        watermark = numbers[i + 1]!;
        channel.watermark(watermark);
        break;
      case STATUS:
        channel.status(numbers[i + 1] !== 0);
        break;
      case END:
        channel.endOfInput();
        break;
      case BARRIER:
        channel.barrier(barriers![numbers[i + 1]!]!);
        break;
    }
    i += 2;
  }
  return watermark;
}
