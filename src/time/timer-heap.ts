// TimerHeap: a priority queue of timers with de-duplication and cheap deletion, grouped by timestamp.
import type { NormalizedKey } from '../state/key-hash.ts';
import { emptyTaggedArray } from '../core/stable-hidden-classes.ts';
import { FlatTimerQueue } from './flat-timer-queue.ts';

/**
 * A timer as the heap hands it out: polled, peeked or listed (a fresh object each time). It carries no namespace
 * key: a session window that grew has never built its `start:end` string, and a fired timer needs none.
 */
export interface HeapTimer<N> {
  readonly timestamp: number;
  readonly key: unknown;
  readonly normalizedKey: NormalizedKey;
  readonly namespace: N;
}

/**
 * A timer whose key differs from its normalized key (a composite key), or the second and later namespaces of one
 * key at one timestamp. The common timer, whose key is its normalized key, is no object at all: its bucket maps the
 * key straight to the namespace.
 */
class TimerEntry<N> {
  constructor(
    readonly key: unknown,
    readonly normalizedKey: NormalizedKey,
    readonly namespace: N,
  ) {}
}

/**
 * The timers of one timestamp, in registration order, in one of three forms.
 *
 * A key list: while every timer of the timestamp has a plain key and one namespace object, the bucket is that
 * namespace and an array of keys, 8 bytes per timer. Two kinds of timers keep it: those added by
 * {@link TimerHeap.addNew} (a window operator's timers at a window's end: one per key, all for that window, however
 * many), and those added and removed by {@link TimerHeap.add} and {@link TimerHeap.remove} while at most
 * {@link SCANNED_LIST} are queued, searched by a scan (a process function's one timer per key at event time plus a
 * delay: about a dozen keys a millisecond on the batching benchmark, most deleted before they fire). A timer of
 * another namespace object turns a short list into a pair list; anything else a list cannot answer (a duplicate
 * check or a removal in a long list, a composite key) turns it into the Map form, keeping the order.
 *
 * A pair list: a bucket whose timers have plain keys and several namespace objects holds up to {@link PAIRS_MAX}
 * timers as key, namespace, key, namespace, ... in one array, and answers duplicate checks and removals by a scan.
 * Timers at scattered timestamps come a few per millisecond (a session window's end moves with every element that
 * extends it: ~6 timers per bucket on the session benchmark, each of its own window), and a Map per bucket cost
 * ~300 bytes, most of the memory of a session's timer, and an allocation per new timestamp. More timers, or a
 * composite key, turn it into the Map form, keeping the order.
 *
 * The Map form: a Map (which iterates in insertion order, skips entries deleted ahead of an iterator and visits
 * entries added behind it) from a normalized key to the namespace of its timer, or to a {@link TimerEntry} when the
 * key is composite. A key's further namespaces at the same timestamp are entries of their own, keyed by the entry
 * object, so the Map's order stays the registration order of every timer.
 */
class TimerBucket<N> {
  // The fields a lookup and an add read come first, so that they share the object's first cache lines: the
  // bucket is cold when a timer is added to or looked for in it (it was last touched many records before).
  /**
   * The timestamp's high and low 32 bits as small integers ({@link highBits}, `timestamp | 0`), which the bucket holds
   * inline: `timestamp` is a heap number, a box of its own, and a lookup that compared it loaded that box, a cache
   * miss, for every bucket of the slot's chain.
   */
  readonly high: number;
  readonly low: number;
  /** Whether `high` and `low` are the timestamp exactly (a safe integer, -0 as 0), so that a lookup need not load it. */
  readonly exact: boolean;
  /** The next bucket whose timestamp hashes to the same slot of the timestamp table (see {@link TimerHeap}). */
  nextInSlot: TimerBucket<N> | undefined = undefined;
  /** The key list; its timers from `listHead` on are queued, the ones before it polled. */
  list: NormalizedKey[] | undefined = undefined;
  /**
   * Whether the key list holds lazily deleted timers ({@link TimerHeap.deleteLazily}): a key `k >= 0` is a timer
   * only while the heap's table holds this timestamp for `k`; `-k - 1` is a timer of `k` kept as usual.
   */
  lazy = false;
  listHead = 0;
  /** The namespace of every timer in the key list. */
  listNamespace: N | undefined = undefined;
  /**
   * The pair list (key, namespace, ...); its pairs from `listHead` to `pairsEnd` are queued, as in the key list.
   * Slots from `pairsEnd` on are room for further pairs (undefined, so that they hold no removed namespace).
   */
  pairs: unknown[] | undefined = undefined;
  pairsEnd = 0;
  /** The Map form (undefined until a bucket takes it; a bucket in no form yet is new and holds nothing). */
  timers: TimerMap<N> | undefined = undefined;
  /** The bucket's number while queued, the index of its place in the heap in {@link TimerHeap}'s `positions`. */
  id = 0;

  constructor(readonly timestamp: number) {
    const high = highBits(timestamp);
    const low = timestamp | 0;
    this.high = high;
    this.low = low;
    this.exact = high * 4294967296 + (low >>> 0) === timestamp;
  }
}

/**
 * The bits of a timestamp above its low 32, as a small integer (0 for -0). Of a safe integer they and `timestamp | 0`
 * are the timestamp exactly; equal timestamps have equal bits.
 */
function highBits(timestamp: number): number {
  return Math.floor(timestamp / 4294967296) | 0;
}

/**
 * Whether `bucket` is the bucket of `timestamp`, given its `high` and `low` bits: the bits compared inline, and the
 * box loaded only when they match and the bucket's do not say its timestamp alone (a fraction of a millisecond, the
 * end of time).
 */
function isTimestamp<N>(bucket: TimerBucket<N>, timestamp: number, high: number, low: number): boolean {
  if (bucket.low !== low || bucket.high !== high) return false;
  return bucket.exact ? high * 4294967296 + (low >>> 0) === timestamp : bucket.timestamp === timestamp;
}

/**
 * A bucket's Map form (see {@link TimerBucket}), in an object of its own: most buckets never take it, and a bucket
 * holding these five fields too was 40 bytes larger and five stores slower to create, once per new timestamp (a
 * session window's end is one most of the time).
 */
class TimerMap<N> {
  readonly map = new Map<NormalizedKey | TimerEntry<N>, N | TimerEntry<N>>();
  /** The further namespaces of a key at this timestamp (rare: windows of one key that end together). */
  more: Map<NormalizedKey, TimerEntry<N>[]> | undefined = undefined;
  /** Reads the Map in order while the bucket is polled; every timer still queued is `head` or behind it. */
  cursor: MapIterator<[NormalizedKey | TimerEntry<N>, N | TimerEntry<N>]> | undefined = undefined;
  /** The timer read last from the cursor and not polled yet (undefined: none; no key is undefined). */
  headSlot: NormalizedKey | TimerEntry<N> | undefined = undefined;
  headValue: N | TimerEntry<N> | undefined = undefined;
}

/** The most timers a pair list holds before its bucket takes the Map form (a scan of up to 16 keys). */
const PAIRS_MAX = 16;

/**
 * The slots of a pair list's array for `used` slots: half as many again (an even number, at least two pairs, at most
 * {@link PAIRS_MAX} pairs), so a timestamp's timers cost a copy of the list every few adds, not every add.
 */
function pairsCapacity(used: number): number {
  return Math.min(Math.max(4, (used + (used >> 1) + 1) & ~1), 2 * PAIRS_MAX);
}

/**
 * The most queued timers of a key list that {@link TimerHeap.add} and {@link TimerHeap.remove} search by a scan
 * (`indexOf` over plain keys) instead of turning the list into a Map: a process function's one timer per key at
 * event time plus a delay comes about a dozen keys to a millisecond, and a longer list (a window's end) is better
 * served by the Map's O(1) lookups.
 */
const SCANNED_LIST = 32;

/**
 * How many lazily deleted timers beyond the number queued a heap with lazy deletion keeps before it drops them all
 * (see `TimerHeap.sweepLazy`).
 */
const STALE_SLACK = 4096;

/** The timestamp table's slots at first (a power of two); it doubles whenever the buckets outnumber its slots. */
const INITIAL_SLOTS = 64;

/**
 * The slot of a timestamp in a table of 2^(32 - `shift`) slots: its low 32 bits times 2^32 / phi, the product's top
 * bits (Fibonacci hashing). Consecutive milliseconds spread evenly over the slots as they would by their low bits
 * alone, and so do times a power of two apart (window ends every 1,024 ms, or whole seconds, which are multiples of
 * 8), which their low bits would pile into a few slots. Equal timestamps (0 and -0 too) share a slot; distinct ones
 * may, and the slot's chain tells them apart.
 */
function slotOf(timestamp: number, shift: number): number {
  return Math.imul(timestamp | 0, 0x9e3779b9) >>> shift;
}

/**
 * A namespace object on which a heap that retires moved timers lazily ({@link TimerHeap.retireMovedTimersLazily})
 * keeps what it knows of the object's queued timers: {@link UNQUEUED}, {@link QUEUED_ONCE}, {@link SHARED} or
 * {@link RETIRED}. The mark is the heap's, not part of the namespace's value. (`TimeWindow` carries one.)
 */
export interface TimerMarked {
  timerMark: number;
}

/** No queued timer holds the object. */
const UNQUEUED = 0;
/** Exactly one queued timer holds the object (by identity). */
const QUEUED_ONCE = 1;
/** Two timers held it at some time: the heap stops counting, and a move from it removes the timer eagerly. */
const SHARED = 2;
/**
 * The one timer that held the object was moved away and left in its bucket: it is no timer any more (never polled,
 * peeked, listed, counted or matched), and the poll that reaches it drops it.
 */
const RETIRED = 3;

/**
 * Flink's HeapPriorityQueueSet, with timers grouped by timestamp: a binary min-heap of buckets, one per distinct
 * timestamp, each its timers in registration order (a list of keys, a list of key and namespace pairs, or an
 * insertion-ordered Map keyed by the timer's key, see {@link TimerBucket}), which is also the index that rejects
 * duplicates of (timestamp, key, namespace). Event-time timers cluster on few timestamps (every key's window ends
 * at the same millisecond), so most adds land in the bucket used last and a poll takes the next timer of the head
 * bucket without touching the heap. Polling order is (timestamp, registration order).
 *
 * A queued timer costs an array slot or two in the lists and one Map entry in the Map form (tens of bytes; no
 * object per timer unless its key is composite), which matters because window operators keep one timer per key and
 * window: the timers are most of their memory.
 *
 * A bucket is found by its timestamp in a table of slots indexed by a hash of the timestamp's low 32 bits
 * ({@link slotOf}), buckets of one slot chained through {@link TimerBucket.nextInSlot}, rather than in a Map from
 * timestamp to bucket: a timestamp (an epoch millisecond, no small integer) is a heap number, which a Map hashes
 * through a call and compares by loading its box on every probe, once per timer added or removed; the table costs a
 * multiplication and a load. The table grows with the distinct timestamps queued (twice as many slots whenever they
 * outnumber them) and shrinks only when cleared.
 *
 * Costs: add, remove and the duplicate check O(1) in an existing bucket (a scan of at most 32 keys or 16 pairs in
 * the lists), O(log b) for a new timestamp or an emptied one (b = distinct timestamps queued); poll and peek
 * amortised O(1).
 *
 * A heap told to delete one namespace's timers lazily ({@link deleteLazily}: a process function's) starts in another
 * form, a {@link FlatTimerQueue}, while each key holds one timer, and keeps deleting lazily in its buckets after.
 */
export class TimerHeap<N> {
  // Objects from the start: an empty literal would change its hidden class at the first bucket, in every heap of every
  // job, after the watermark path had been compiled for a heap of buckets (core/stable-hidden-classes.ts).
  private readonly heap: TimerBucket<N>[] = emptyTaggedArray();
  /**
   * `times[i]` is `heap[i].timestamp`, unboxed: the sifts compare these, one array, instead of loading each child
   * bucket and its timestamp's box (two cache misses per comparison in a heap of thousands of buckets, where a
   * session's emptied bucket leaves from the middle). Grown by doubling; slots past the heap's length mean nothing.
   */
  private times = new Float64Array(INITIAL_SLOTS);
  /**
   * `ids[i]` is `heap[i].id`, and `positions[id]` the place in the heap of the bucket numbered `id`: the sifts keep
   * these two arrays instead of a place written into each bucket they move, so a poll that empties the head bucket
   * sifts through typed arrays only (with lazy deletion every bucket leaves from the head, and the buckets a sift
   * moves are cold: a cache miss each, at every level). Numbers of dropped buckets are taken again first.
   */
  private ids = new Int32Array(INITIAL_SLOTS);
  private positions = new Int32Array(INITIAL_SLOTS);
  private readonly freeIds: number[] = [];
  private nextId = 0;
  /** Each queued bucket is in the chain of its timestamp's slot ({@link slotOf}). */
  // Stryker disable next-line ArrayDeclaration: an empty array reads undefined in every slot as well (the size only presizes it)
  private slots: (TimerBucket<N> | undefined)[] = new Array<TimerBucket<N> | undefined>(INITIAL_SLOTS).fill(
    undefined,
  );
  /** 32 minus log2 of the slots: a timestamp's slot is the top bits of its hash. */
  private slotShift = 32 - Math.log2(INITIAL_SLOTS);
  /** The bucket the last add went to: consecutive timers of one window share it, so they skip the table. */
  private lastBucket: TimerBucket<N> | undefined = undefined;
  private count = 0;
  /** Whether namespaces carry marks and moves retire their old timer in place ({@link retireMovedTimersLazily}). */
  private marked = false;
  /**
   * With lazy deletion on ({@link deleteLazily}), `lazyTimes[k]` is the timestamp of key `k`'s one lazily kept timer,
   * NaN when it has none; undefined while lazy deletion is off.
   */
  private lazyTimes: Float64Array | undefined = undefined;
  /** The namespace whose timers are kept lazily. */
  private lazyNamespace: N | undefined = undefined;
  /** How many lazily deleted timers the key lists still hold (see {@link sweepLazy}). */
  private stale = 0;
  /**
   * The first form of a heap with lazy deletion: every timer of the lazy namespace, one a key, in a
   * {@link FlatTimerQueue}; until a timer it cannot hold comes, which moves them all into buckets for good.
   */
  private flat: FlatTimerQueue | undefined = undefined;

  /**
   * `nsKey` gives a namespace's identity (the namespace serializer's key); the namespace itself by default.
   * `equals`, when given, tells two namespace objects apart instead of their keys, which may cost a string each
   * (a session window's `start:end`; see NamespaceHashing).
   */
  constructor(
    private readonly nsKey: (namespace: N) => string | number = (n) => n as string | number,
    private readonly equals?: (a: N, b: N) => boolean,
  ) {}

  get size(): number {
    return this.count;
  }

  /** How many of the queued timers are held in key lists, 8 bytes each (see {@link addNew}); O(timestamps). */
  numListed(): number {
    let n = 0;
    // Stryker disable next-line ConditionalExpression: the flat form has no buckets
    if (this.flat !== undefined) return 0;
    for (const bucket of this.heap) {
      const list = bucket.list;
      if (list === undefined || (this.marked && this.isRetired(bucket.listNamespace!))) continue;
      for (let i = bucket.listHead; i < list.length; i++)
        if (this.listedKey(bucket, list[i]!) !== undefined) n++;
    }
    return n;
  }

  /**
   * From now on a move whose old timer is the one timer holding its namespace object leaves that timer in its
   * bucket, marked retired on the namespace object (a store to an object the caller just read), instead of finding
   * its bucket and its place there: for a session that an element extends, the old end's bucket was last touched
   * seconds of event time before, and that search cost about three cache misses per move. The retired timer is
   * dropped when a poll reaches it, and until then it is no timer: every query answers as if it had been removed
   * (size, peek, poll, the duplicate check, removal, {@link values}), so the order and the snapshots are those of the
   * eager removal. Namespaces must be {@link TimerMarked} objects; and a move's caller promises that every timer
   * holding `fromNamespace` by identity is (`fromTimestamp`, the key) (a session's window object belongs to one key
   * and has one timer, at its end).
   */
  retireMovedTimersLazily(): void {
    if (this.lazyTimes === undefined) this.marked = true;
  }

  /**
   * From now on the timers of `namespace` whose key is a small non-negative integer (a plain key) are deleted
   * lazily, as the limit's loop leaves a deleted timer in its heap. A process function's timer at event time plus a
   * delay, deleted when its batch closes early, was registered hundreds of milliseconds of event time before, so
   * finding its bucket, the bucket's key list and that list's elements took three dependent cache misses per
   * removal; a table indexed by the key, 8 or 16 bytes a key, stays in the cache.
   *
   * On an empty heap the timers go into a {@link FlatTimerQueue} first: one entry a key in a heap of typed arrays and
   * the key's timer in a table, a deleted timer's entry taken by the key's next one, so neither adding nor deleting
   * touches memory used long before. It
   * holds one timer a key, of `namespace`, with keys up to 65,536 (or eight a queued timer): the first timer it
   * cannot hold (a key's second one, another namespace, a string, composite or larger key) moves every timer into
   * buckets, in order, for good (until {@link clear}).
   *
   * In the buckets the table keeps, per such key, the timestamp of one of its timers (`lazyTimes`), and a removal of
   * that timer clears the key's entry there instead of finding the timer's bucket. The bucket keeps the key, which
   * is no timer once the table no longer holds the bucket's timestamp for it; a key's further timers, while one is
   * in the table, are kept in their buckets as usual. In both forms every query answers as if the deleted timer had
   * been removed (size, peek, poll, the duplicate check, removal, {@link values}), a poll or peek that reaches it
   * drops it, and in the buckets the deleted timers are all dropped at once when they outnumber the queued ones by a
   * few thousand, so the order and the snapshots are those of the eager removal and a timer pushed back record after
   * record leaves no trail. Larger keys, other namespaces and composite keys are kept as usual. Not with
   * {@link retireMovedTimersLazily}.
   */
  deleteLazily(namespace: N): void {
    if (this.marked || this.lazyTimes !== undefined) return;
    this.lazyNamespace = namespace;
    this.lazyTimes = new Float64Array(0);
    if (this.heap.length === 0) this.flat = new FlatTimerQueue();
  }

  /**
   * {@link add} in the flat form: true when added, false for a duplicate, undefined when the queue cannot hold the
   * timer (another namespace, a key that is no small non-negative integer, a key's second timer).
   */
  private addFlat(
    flat: FlatTimerQueue,
    timestamp: number,
    key: unknown,
    normalizedKey: NormalizedKey,
    namespace: N,
  ): boolean | undefined {
    if (key !== normalizedKey || namespace !== this.lazyNamespace || typeof normalizedKey !== 'number')
      return undefined;
    if (!flat.accepts(normalizedKey)) return undefined;
    const held = flat.timeOf(normalizedKey);
    if (held === timestamp) return false;
    if (!Number.isNaN(held)) return undefined;
    flat.add(timestamp, normalizedKey);
    this.count++;
    return true;
  }

  /** Leaves the flat form: its timers go into buckets, in firing order, and lazy deletion goes on there. */
  private unflatten(flat: FlatTimerQueue): void {
    this.flat = undefined;
    const entries = flat.values();
    this.count = 0;
    for (let i = 0; i < entries.length; i += 2)
      this.insert(entries[i]!, entries[i + 1]!, entries[i + 1]!, this.lazyNamespace!);
  }

  /** A timer of the flat form's earliest timestamp: its key as the lists hold it. */
  private flatTimer(flat: FlatTimerQueue, timestamp: number): HeapTimer<N> {
    const key = flat.peekKey();
    return { timestamp, key, normalizedKey: key, namespace: this.lazyNamespace! };
  }

  /**
   * The key a key list's entry stands for, or undefined when the entry is a lazily deleted timer (see
   * {@link deleteLazily}); the entry itself in a list that keeps no lazy timers.
   */
  private listedKey(bucket: TimerBucket<N>, entry: NormalizedKey): NormalizedKey | undefined {
    if (!bucket.lazy) return entry;
    const k = entry as number;
    if (k < 0) return -k - 1;
    return this.lazyTimes![k] === bucket.timestamp ? k : undefined;
  }

  /** The head bucket: past retired timers with marks, past lazily deleted ones with lazy deletion. */
  private head(): TimerBucket<N> | undefined {
    if (this.marked) return this.liveHead();
    if (this.lazyTimes !== undefined) return this.lazyHead();
    // Not a read past the end: a job's first watermarks find the heap empty before V8 records the read's feedback,
    // so the optimised code of the previous job's watermark path, which never read past the end, was thrown away.
    const heap = this.heap;
    return heap.length === 0 ? undefined : heap[0];
  }

  /**
   * The head bucket of a heap with lazy deletion, once the lazily deleted timers at its front are dropped (each is
   * passed over once, here): its key list then starts with a timer.
   */
  private lazyHead(): TimerBucket<N> | undefined {
    const times = this.lazyTimes!;
    for (;;) {
      const bucket = this.heap[0];
      if (bucket === undefined || !bucket.lazy) return bucket;
      const list = bucket.list!;
      const timestamp = bucket.timestamp;
      let head = bucket.listHead;
      while (head < list.length) {
        const k = list[head] as number;
        if (k < 0 || times[k] === timestamp) break;
        head++;
        this.stale--;
      }
      bucket.listHead = head;
      if (head < list.length) return bucket;
      this.dropBucket(bucket);
    }
  }

  /**
   * Whether a timer (`key`, `normalizedKey`, `namespace`) is one lazy deletion keeps in the table: a plain key, a
   * small non-negative integer, of the lazy namespace. Grows the table to hold the key when it may.
   */
  private lazyKey(key: unknown, normalizedKey: NormalizedKey, namespace: N): boolean {
    const times = this.lazyTimes;
    if (times === undefined || key !== normalizedKey || namespace !== this.lazyNamespace) return false;
    const k = normalizedKey as number;
    if (typeof normalizedKey !== 'number' || (k | 0) !== k || k < 0) return false;
    if (k < times.length) return true;
    // Stryker disable next-line ArithmeticOperator,EqualityOperator: memory only: a key the table does not take is kept as usual
    if (k >= Math.max(65_536, 8 * this.count)) return false;
    let length = Math.max(64, times.length);
    while (length <= k) length *= 2;
    const grown = new Float64Array(length).fill(Number.NaN);
    grown.set(times);
    this.lazyTimes = grown;
    return true;
  }

  /**
   * Turns a bucket's lazy key list into a plain one, in order: lazily deleted timers dropped, the key's table entry
   * of each kept timer cleared (before a timer the list cannot keep lazily comes, or the list takes another form).
   */
  private unlazy(bucket: TimerBucket<N>, list: NormalizedKey[]): void {
    const times = this.lazyTimes!;
    const timestamp = bucket.timestamp;
    let kept = bucket.listHead;
    for (let i = bucket.listHead; i < list.length; i++) {
      const k = list[i] as number;
      if (k < 0) list[kept++] = -k - 1;
      else if (times[k] === timestamp) {
        times[k] = Number.NaN;
        list[kept++] = k;
      } else this.stale--;
    }
    while (list.length > kept) list.pop();
    bucket.lazy = false;
  }

  /**
   * Drops every lazily deleted timer from the key lists, once they are more than the queued timers (and
   * {@link STALE_SLACK}): a key whose timer is deleted and registered again far ahead, record after record, would
   * otherwise leave a deleted timer per record until the watermark reaches them. O(timers), so O(1) amortised.
   */
  private sweepLazy(): void {
    const times = this.lazyTimes!;
    for (const bucket of [...this.heap]) {
      if (!bucket.lazy) continue;
      const list = bucket.list!;
      const timestamp = bucket.timestamp;
      let kept = bucket.listHead;
      for (let i = bucket.listHead; i < list.length; i++) {
        const k = list[i] as number;
        if (k < 0 || times[k] === timestamp) list[kept++] = k;
      }
      while (list.length > kept) list.pop();
      if (kept === bucket.listHead) this.dropBucket(bucket);
    }
    this.stale = 0;
  }

  /**
   * {@link insert} into a lazy key list of a timer {@link lazyKey} accepts: the table's entry says whether the key's
   * kept timer is this one (a duplicate); else a scan finds the key's entries in the list: a timer kept as usual (a
   * duplicate), or a lazily deleted one, dropped so the new timer goes last. Then the new timer goes into the table
   * when the key has no timer there, else into the list as usual. 1 when added, 0 for a duplicate, -1 when the
   * list is too long to scan (the caller then turns it into a plain list).
   */
  private insertLazy(bucket: TimerBucket<N>, list: NormalizedKey[], timestamp: number, k: number): number {
    const times = this.lazyTimes!;
    if (times[k] === timestamp) return 0;
    const head = bucket.listHead;
    if (list.length - head >= SCANNED_LIST) return -1;
    const kept = -k - 1;
    let stale = -1;
    for (let i = head; i < list.length; i++) {
      const entry = list[i];
      if (entry === kept) return 0;
      if (entry === k) stale = i;
    }
    if (stale >= 0) {
      const last = list.length - 1;
      for (let j = stale; j < last; j++) list[j] = list[j + 1]!;
      list.pop();
      this.stale--;
    }
    if (Number.isNaN(times[k]!)) {
      times[k] = timestamp;
      list.push(k);
    } else list.push(kept);
    this.count++;
    return 1;
  }

  /** The earliest timer, without removing it. */
  peek(): HeapTimer<N> | undefined {
    const flat = this.flat;
    if (flat !== undefined) {
      const timestamp = flat.peekTimestamp();
      return timestamp === undefined ? undefined : this.flatTimer(flat, timestamp);
    }
    const bucket = this.head();
    if (bucket === undefined) return undefined;
    const list = bucket.list;
    if (list !== undefined)
      return this.timerOf(
        bucket.timestamp,
        this.listedKey(bucket, list[bucket.listHead]!)!,
        bucket.listNamespace!,
      );
    const pairs = bucket.pairs;
    if (pairs !== undefined)
      return this.timerOf(
        bucket.timestamp,
        pairs[bucket.listHead] as NormalizedKey,
        pairs[bucket.listHead + 1] as N,
      );
    const form = bucket.timers!;
    this.loadHead(form);
    return this.timerOf(bucket.timestamp, form.headSlot!, form.headValue!);
  }

  /** The earliest timer's timestamp, or undefined when there is none. */
  peekTimestamp(): number | undefined {
    const flat = this.flat;
    if (flat !== undefined) return flat.peekTimestamp();
    return this.head()?.timestamp;
  }

  /**
   * Adds a timer unless it exists. Returns true when added. A namespace's key is asked for only to tell it from
   * another namespace object of the same key and timestamp, so a window that registers its first timer (a session
   * window that grew) never builds its key here.
   */
  add(timestamp: number, key: unknown, normalizedKey: NormalizedKey, namespace: N): boolean {
    const flat = this.flat;
    if (flat !== undefined) {
      const added = this.addFlat(flat, timestamp, key, normalizedKey, namespace);
      if (added !== undefined) return added;
      this.unflatten(flat);
    }
    if (!this.marked) return this.insert(timestamp, key, normalizedKey, namespace);
    // A retired timer holding this object would be mistaken for the new one: dropped first (no session does this).
    if (this.isRetired(namespace)) this.sweepRetired();
    const added = this.insert(timestamp, key, normalizedKey, namespace);
    if (added) this.markQueued(namespace);
    return added;
  }

  /** {@link add}, without the marks. */
  private insert(timestamp: number, key: unknown, normalizedKey: NormalizedKey, namespace: N): boolean {
    const bucket = this.bucketFor(timestamp);
    const list = bucket.list;
    if (list !== undefined) {
      if (bucket.lazy) {
        if (this.lazyKey(key, normalizedKey, namespace)) {
          const added = this.insertLazy(bucket, list, timestamp, normalizedKey as number);
          if (added >= 0) return added > 0;
        }
        this.unlazy(bucket, list);
      }
      const queued = list.length - bucket.listHead;
      if (queued <= SCANNED_LIST && key === normalizedKey && namespace !== undefined) {
        if (namespace === bucket.listNamespace) {
          // Strict equality is the Map's SameValueZero for normalized keys (never NaN; -0 is 0).
          if (list.indexOf(normalizedKey, bucket.listHead) >= 0) return false;
          if (queued < SCANNED_LIST) {
            list.push(normalizedKey);
            this.count++;
            return true;
          }
        } else if (queued < PAIRS_MAX) this.toPairs(bucket, list);
      }
      if (bucket.list !== undefined) this.toMapForm(bucket);
    }
    if (bucket.timers === undefined) {
      const plain = key === normalizedKey && namespace !== undefined;
      const pairs = bucket.pairs;
      if (pairs === undefined) {
        if (plain) {
          // A new bucket: it holds nothing, so this timer is no duplicate.
          if (this.lazyKey(key, normalizedKey, namespace)) {
            const k = normalizedKey as number;
            const times = this.lazyTimes!;
            bucket.lazy = true;
            if (Number.isNaN(times[k]!)) {
              times[k] = timestamp;
              bucket.list = [k];
            } else bucket.list = [-k - 1];
          } else bucket.list = [normalizedKey];
          bucket.listNamespace = namespace;
          this.count++;
          return true;
        }
      } else {
        const end = bucket.pairsEnd;
        for (let i = bucket.listHead; i < end; i += 2)
          if (
            pairs[i] === normalizedKey &&
            this.same(pairs[i + 1] as N, namespace) &&
            !(this.marked && this.isRetired(pairs[i + 1] as N))
          )
            return false;
        const head = bucket.listHead;
        const queued = end - head;
        if (plain && queued < 2 * PAIRS_MAX) {
          if (end < pairs.length) {
            pairs[end] = normalizedKey;
            pairs[end + 1] = namespace;
          } else {
            // Full: a copy with room for half as many again (a push would grow the array by half plus 16 slots,
            // more than the pairs of most timestamps; one pair more each time made every add a copy, ~150 bytes of
            // garbage per timer on the session benchmark). By hand, at most PAIRS_MAX pairs; polled pairs are left
            // behind.
            const grown = new Array<unknown>(pairsCapacity(queued + 2));
            for (let i = 0; i < queued; i++) grown[i] = pairs[head + i];
            grown[queued] = normalizedKey;
            grown[queued + 1] = namespace;
            for (let i = queued + 2; i < grown.length; i++) grown[i] = undefined;
            bucket.pairs = grown;
            bucket.listHead = 0;
          }
          bucket.pairsEnd = bucket.listHead + queued + 2;
          this.count++;
          return true;
        }
      }
      this.toMapForm(bucket);
    }
    const form = bucket.timers!;
    const timers = form.map;
    const first = timers.get(normalizedKey);
    if (first !== undefined && this.sameNamespace(first, namespace) && !this.retiredValue(first))
      return false;
    let more = form.more?.get(normalizedKey);
    if (more !== undefined)
      for (const entry of more)
        if (this.same(entry.namespace, namespace) && !this.retiredValue(entry)) return false;
    this.count++;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: memory only: as an entry of its own the first timer of a key is found, ordered and removed alike
    if (first === undefined) {
      // An undefined namespace gets an entry too, so that a missing slot and a timer stay distinct.
      // Stryker disable next-line ConditionalExpression,LogicalOperator: memory only: an entry object holds the same timer
      const plain = key === normalizedKey && namespace !== undefined;
      timers.set(normalizedKey, plain ? namespace : new TimerEntry(key, normalizedKey, namespace));
      return true;
    }
    const entry = new TimerEntry(key, normalizedKey, namespace);
    if (more === undefined) (form.more ??= new Map()).set(normalizedKey, (more = []));
    more.push(entry);
    timers.set(entry, entry);
    return true;
  }

  /**
   * Adds a timer the caller knows is not queued (say, the timer of a window pane that did not exist before), with
   * no duplicate check: a window's end gathers its keys in a list (see {@link TimerBucket}) of any length while
   * every timer there has one namespace object. Adding a timer that is queued breaks the de-duplication.
   */
  addNew(timestamp: number, key: unknown, normalizedKey: NormalizedKey, namespace: N): void {
    // Lazy deletion keeps its lists through add.
    if (this.marked || this.lazyTimes !== undefined) {
      // The marks are kept by add (a heap of sessions' timers, which come through add anyway).
      this.add(timestamp, key, normalizedKey, namespace);
      return;
    }
    const bucket = this.bucketFor(timestamp);
    const list = bucket.list;
    if (key === normalizedKey && namespace !== undefined) {
      if (list !== undefined) {
        if (bucket.listNamespace === namespace) {
          list.push(normalizedKey);
          this.count++;
          return;
        }
      } else if (bucket.timers === undefined && bucket.pairs === undefined) {
        // A new bucket: every bucket in a form holds a timer, or is dropped.
        bucket.list = [normalizedKey];
        bucket.listNamespace = namespace;
        this.count++;
        return;
      }
    }
    this.add(timestamp, key, normalizedKey, namespace);
  }

  /**
   * Moves a key's timer from (`fromTimestamp`, `fromNamespace`) to (`toTimestamp`, `toNamespace`): the timers left
   * are those of `add` of the new timer followed by `remove` of the old one, the order a grown session's timers go
   * in (the trigger's `onMerge` registers the merged window's, `clear` deletes the old window's). So the new timer
   * is the last registered at its timestamp, nothing is added when it is queued already, and moving a timer onto
   * itself removes it, as that pair of calls does. In a heap that retires moved timers lazily, an old timer that is
   * the one timer holding `fromNamespace` is retired in place (see {@link retireMovedTimersLazily}).
   */
  move(
    fromTimestamp: number,
    fromNamespace: N,
    toTimestamp: number,
    key: unknown,
    normalizedKey: NormalizedKey,
    toNamespace: N,
  ): void {
    this.add(toTimestamp, key, normalizedKey, toNamespace);
    if (this.marked && (fromNamespace as unknown as TimerMarked).timerMark === QUEUED_ONCE) {
      // The caller's promise makes this object's one timer (fromTimestamp, key): it is the old timer.
      (fromNamespace as unknown as TimerMarked).timerMark = RETIRED;
      this.count--;
    } else this.remove(fromTimestamp, normalizedKey, fromNamespace);
  }

  /** Removes the timer (timestamp, key, namespace) if present. Returns true when removed. */
  remove(timestamp: number, normalizedKey: NormalizedKey, namespace: N): boolean {
    const flat = this.flat;
    if (flat !== undefined) {
      if (typeof normalizedKey !== 'number' || !(normalizedKey >= 0)) return false;
      if (namespace !== this.lazyNamespace && !this.same(this.lazyNamespace!, namespace)) return false;
      if (!flat.remove(timestamp, normalizedKey)) return false;
      this.count--;
      return true;
    }
    const times = this.lazyTimes;
    if (times !== undefined && typeof normalizedKey === 'number') {
      // The key's lazily kept timer: its table entry cleared, its bucket not looked at (see deleteLazily).
      const k = normalizedKey;
      if (
        k >= 0 &&
        k < times.length &&
        times[k] === timestamp &&
        (namespace === this.lazyNamespace || this.same(this.lazyNamespace!, namespace))
      ) {
        times[k] = Number.NaN;
        this.count--;
        // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: memory only: the sweep drops what the heads would
        if (++this.stale > this.count + STALE_SLACK) this.sweepLazy();
        return true;
      }
    }
    const bucket =
      // Stryker disable next-line ConditionalExpression,OptionalChaining: a cache; the table holds the same bucket
      this.lastBucket?.timestamp === timestamp ? this.lastBucket : this.findBucket(timestamp);
    if (bucket === undefined) return false;
    const pairs = bucket.pairs;
    if (pairs !== undefined) return this.removePair(bucket, pairs, normalizedKey, namespace);
    const list = bucket.list;
    if (list !== undefined) {
      if (bucket.lazy || list.length - bucket.listHead <= SCANNED_LIST) {
        // A list holds timers of its one namespace: another namespace has no timer here.
        if (namespace !== bucket.listNamespace && !this.same(bucket.listNamespace!, namespace)) return false;
        // A lazy list's timer of this key, if any, is one kept as usual (the table's was looked for above).
        if (bucket.lazy) return this.removeKept(bucket, list, normalizedKey);
        // A retired namespace was held by one timer: this list's only one, which is no timer.
        if (this.marked && this.isRetired(bucket.listNamespace!)) return false;
        const i = list.indexOf(normalizedKey, bucket.listHead);
        if (i < 0) return false;
        if (this.marked) this.markUnqueued(bucket.listNamespace!);
        this.removeFromList(bucket, list, i);
        return true;
      }
      this.toMapForm(bucket);
    }
    const form = bucket.timers!;
    const timers = form.map;
    const first = timers.get(normalizedKey);
    let slot: NormalizedKey | TimerEntry<N> | undefined;
    if (first !== undefined && this.sameNamespace(first, namespace) && !this.retiredValue(first)) {
      slot = normalizedKey;
      if (this.marked) this.markUnqueued(first instanceof TimerEntry ? (first.namespace as N) : first);
    } else {
      const list = form.more?.get(normalizedKey);
      const i =
        list === undefined
          ? -1
          : list.findIndex((e) => this.same(e.namespace, namespace) && !this.retiredValue(e));
      if (i < 0) return false;
      slot = list![i]!;
      if (this.marked) this.markUnqueued(slot.namespace);
      this.dropMore(form, normalizedKey, list!, i);
    }
    timers.delete(slot);
    if (form.headSlot === slot) this.clearHead(form);
    this.count--;
    if (timers.size === 0) this.dropBucket(bucket);
    return true;
  }

  /**
   * Removes the timer of `normalizedKey` kept as usual (`-k - 1`) in a lazy key list, if there is one; lazily kept
   * timers are removed through the table.
   */
  private removeKept(bucket: TimerBucket<N>, list: NormalizedKey[], normalizedKey: NormalizedKey): boolean {
    const k = normalizedKey as number;
    // A lazy list holds small non-negative integer keys only.
    if (typeof normalizedKey !== 'number' || !(k >= 0)) return false;
    const i = list.indexOf(-k - 1, bucket.listHead);
    if (i < 0) return false;
    this.removeFromList(bucket, list, i);
    return true;
  }

  /** Removes the queued timer at `i` of a bucket's key list, and the bucket once nothing in it is queued. */
  private removeFromList(bucket: TimerBucket<N>, list: NormalizedKey[], i: number): void {
    // Polled keys stay before listHead; the queued ones behind the removed key move up, in order. By hand:
    // `splice` allocates the array of removed elements it returns, and setting `length` is a runtime call.
    const last = list.length - 1;
    for (let j = i; j < last; j++) list[j] = list[j + 1]!;
    list.pop();
    this.count--;
    if (bucket.listHead === list.length) this.dropBucket(bucket);
  }

  /**
   * The key of a lazy key list's entry that is a timer, which is polled (its table entry cleared, when it is the
   * key's lazily kept timer).
   */
  private pollLazy(entry: NormalizedKey): NormalizedKey {
    const k = entry as number;
    if (k < 0) return -k - 1;
    this.lazyTimes![k] = Number.NaN;
    return k;
  }

  /** Removes and returns the earliest timer. */
  poll(): HeapTimer<N> | undefined {
    const flat = this.flat;
    if (flat !== undefined) {
      const timestamp = flat.peekTimestamp();
      if (timestamp === undefined) return undefined;
      const timer = this.flatTimer(flat, timestamp);
      flat.poll();
      this.count--;
      return timer;
    }
    const bucket = this.head();
    if (bucket === undefined) return undefined;
    // The lists hold plain keys and their namespaces, never an entry object: the timer is built without asking
    // (`timerOf`'s type test loaded the namespace object, a cache miss per polled session timer).
    const list = bucket.list;
    if (list !== undefined) {
      const entry = list[bucket.listHead++]!;
      const key = bucket.lazy ? this.pollLazy(entry) : entry;
      const timer: HeapTimer<N> = {
        timestamp: bucket.timestamp,
        key,
        normalizedKey: key,
        namespace: bucket.listNamespace!,
      };
      if (this.marked) this.markUnqueued(timer.namespace);
      this.count--;
      if (bucket.listHead === list.length) this.dropBucket(bucket);
      return timer;
    }
    const pairs = bucket.pairs;
    if (pairs !== undefined) {
      const head = bucket.listHead;
      const key = pairs[head] as NormalizedKey;
      const timer: HeapTimer<N> = {
        timestamp: bucket.timestamp,
        key,
        normalizedKey: key,
        namespace: pairs[head + 1] as N,
      };
      bucket.listHead = head + 2;
      if (this.marked) this.markUnqueued(timer.namespace);
      this.count--;
      if (head + 2 === bucket.pairsEnd) this.dropBucket(bucket);
      return timer;
    }
    const form = bucket.timers!;
    this.loadHead(form);
    const slot = form.headSlot!;
    const timer = this.timerOf(bucket.timestamp, slot, form.headValue!);
    this.dropMapHead(form, slot);
    if (this.marked) this.markUnqueued(timer.namespace);
    this.count--;
    if (form.map.size === 0) this.dropBucket(bucket);
    return timer;
  }

  /**
   * The namespace of the earliest timers when they are a key list (see {@link TimerBucket}), else undefined (another
   * form, an empty heap, or a heap with marks). The list's timers can then be polled by {@link pollListed}.
   */
  headListNamespace(): N | undefined {
    if (this.marked) return undefined;
    const flat = this.flat;
    if (flat !== undefined) return flat.peekTimestamp() === undefined ? undefined : this.lazyNamespace;
    return this.head()?.listNamespace;
  }

  /**
   * {@link poll} of a timer the caller knows the timestamp and namespace of, returning only its key, so no timer
   * object is made: the earliest timer if it is (`timestamp`, `namespace`) and its bucket is a key list, else
   * undefined (no key is undefined), leaving the heap as it was. Polling a window end's timers this way until it
   * answers undefined takes the same timers in the same order as {@link poll} would, each when `poll` would give it,
   * whatever is added or removed in between.
   */
  pollListed(timestamp: number, namespace: N): NormalizedKey | undefined {
    if (this.marked) return undefined;
    const flat = this.flat;
    if (flat !== undefined) {
      if (namespace !== this.lazyNamespace || flat.peekTimestamp() !== timestamp) return undefined;
      this.count--;
      return flat.poll();
    }
    const bucket = this.lazyTimes !== undefined ? this.lazyHead() : this.heap[0];
    if (bucket === undefined) return undefined;
    const list = bucket.list;
    if (list === undefined || bucket.listNamespace !== namespace || bucket.timestamp !== timestamp)
      return undefined;
    const entry = list[bucket.listHead++]!;
    const key = bucket.lazy ? this.pollLazy(entry) : entry;
    this.count--;
    if (bucket.listHead === list.length) this.dropBucket(bucket);
    return key;
  }

  /** Removes the head timer of a bucket's Map form (read by `loadHead`), whose slot is `slot`. */
  private dropMapHead(form: TimerMap<N>, slot: NormalizedKey | TimerEntry<N>): void {
    this.clearHead(form);
    form.map.delete(slot);
    if (typeof slot === 'object') {
      const list = form.more!.get(slot.normalizedKey)!;
      this.dropMore(form, slot.normalizedKey, list, list.indexOf(slot));
    }
  }

  /**
   * The head bucket of a heap with marks, once the retired timers at its front are dropped: a retired timer is
   * dropped only here (or by {@link sweepRetired}), when a poll or peek reaches it, its bucket then being touched
   * anyway. The mark of its namespace object is cleared: no timer holds it now.
   */
  private liveHead(): TimerBucket<N> | undefined {
    for (;;) {
      const bucket = this.heap[0];
      if (bucket === undefined) return undefined;
      const list = bucket.list;
      const pairs = bucket.pairs;
      const head = bucket.listHead;
      let namespace: N;
      if (list !== undefined) namespace = bucket.listNamespace!;
      else if (pairs !== undefined) namespace = pairs[head + 1] as N;
      else {
        const form = bucket.timers!;
        this.loadHead(form);
        const value = form.headValue!;
        namespace = value instanceof TimerEntry ? (value.namespace as N) : value;
      }
      if (!this.isRetired(namespace)) return bucket;
      // Stryker disable next-line all: speed only: a mark left retired makes the object's next timer shared, so its moves remove eagerly
      (namespace as unknown as TimerMarked).timerMark = UNQUEUED;
      if (list !== undefined) {
        bucket.listHead = head + 1;
        if (head + 1 === list.length) this.dropBucket(bucket);
      } else if (pairs !== undefined) {
        bucket.listHead = head + 2;
        if (head + 2 === bucket.pairsEnd) this.dropBucket(bucket);
      } else {
        const form = bucket.timers!;
        this.dropMapHead(form, form.headSlot!);
        if (form.map.size === 0) this.dropBucket(bucket);
      }
    }
  }

  /**
   * Drops every retired timer, wherever it is: before a timer holding a retired namespace object is added, which
   * the object's one mark could not tell from the retired one (a session's window gets no timer after its timer
   * moved away, so this is for other callers). O(timers).
   */
  private sweepRetired(): void {
    for (const bucket of [...this.heap]) {
      const list = bucket.list;
      const pairs = bucket.pairs;
      if (list !== undefined) {
        const namespace = bucket.listNamespace!;
        if (!this.isRetired(namespace)) continue;
        // Held by one timer only: the list's one queued key.
        (namespace as unknown as TimerMarked).timerMark = UNQUEUED;
        bucket.listHead = list.length;
        this.dropBucket(bucket);
      } else if (pairs !== undefined) {
        const end = bucket.pairsEnd;
        let kept = bucket.listHead;
        for (let i = bucket.listHead; i < end; i += 2) {
          const namespace = pairs[i + 1] as N;
          if (this.isRetired(namespace)) {
            (namespace as unknown as TimerMarked).timerMark = UNQUEUED;
            continue;
          }
          pairs[kept] = pairs[i];
          pairs[kept + 1] = namespace;
          kept += 2;
        }
        for (let i = kept; i < end; i++) pairs[i] = undefined;
        bucket.pairsEnd = kept;
        if (kept === bucket.listHead) this.dropBucket(bucket);
      } else {
        const form = bucket.timers!;
        for (const [slot, value] of form.map) {
          const namespace = value instanceof TimerEntry ? (value.namespace as N) : value;
          if (!this.isRetired(namespace)) continue;
          (namespace as unknown as TimerMarked).timerMark = UNQUEUED;
          if (form.headSlot === slot) this.dropMapHead(form, slot);
          else {
            form.map.delete(slot);
            if (typeof slot === 'object') {
              const more = form.more!.get(slot.normalizedKey)!;
              this.dropMore(form, slot.normalizedKey, more, more.indexOf(slot));
            }
          }
        }
        if (form.map.size === 0) this.dropBucket(bucket);
      }
    }
  }

  private isRetired(namespace: N): boolean {
    return (namespace as unknown as TimerMarked).timerMark === RETIRED;
  }

  /** Whether a Map form's value (a namespace, or an entry) is a retired timer; never in a heap without marks. */
  private retiredValue(value: N | TimerEntry<N>): boolean {
    if (!this.marked) return false;
    return this.isRetired(value instanceof TimerEntry ? (value.namespace as N) : value);
  }

  /** A timer holding `namespace` was queued. */
  private markQueued(namespace: N): void {
    const marked = namespace as unknown as TimerMarked;
    marked.timerMark = marked.timerMark === UNQUEUED ? QUEUED_ONCE : SHARED;
  }

  /** A timer holding `namespace` left the heap (polled or removed). */
  private markUnqueued(namespace: N): void {
    const marked = namespace as unknown as TimerMarked;
    if (marked.timerMark === QUEUED_ONCE) marked.timerMark = UNQUEUED;
  }

  /** All timers, in firing order (a fresh array). */
  values(): readonly HeapTimer<N>[] {
    const all: HeapTimer<N>[] = [];
    const flat = this.flat;
    if (flat !== undefined) {
      const entries = flat.values();
      for (let i = 0; i < entries.length; i += 2)
        all.push(this.timerOf(entries[i]!, entries[i + 1]!, this.lazyNamespace!));
      return all;
    }
    const buckets = [...this.heap].sort((a, b) => a.timestamp - b.timestamp);
    for (const bucket of buckets) {
      const list = bucket.list;
      if (list !== undefined) {
        if (this.marked && this.isRetired(bucket.listNamespace!)) continue;
        for (let i = bucket.listHead; i < list.length; i++) {
          const key = this.listedKey(bucket, list[i]!);
          if (key !== undefined) all.push(this.timerOf(bucket.timestamp, key, bucket.listNamespace!));
        }
      } else if (bucket.pairs !== undefined) {
        const pairs = bucket.pairs;
        for (let i = bucket.listHead; i < bucket.pairsEnd; i += 2)
          if (!(this.marked && this.isRetired(pairs[i + 1] as N)))
            all.push(this.timerOf(bucket.timestamp, pairs[i] as NormalizedKey, pairs[i + 1] as N));
      } else
        for (const [slot, value] of bucket.timers!.map)
          if (!this.retiredValue(value)) all.push(this.timerOf(bucket.timestamp, slot, value));
    }
    return all;
  }

  clear(): void {
    // The objects' marks would claim timers of an empty heap (a move would then retire a timer that is gone).
    if (this.marked) for (const timer of this.values()) this.markUnqueued(timer.namespace);
    this.heap.length = 0;
    this.times = new Float64Array(INITIAL_SLOTS);
    this.ids = new Int32Array(INITIAL_SLOTS);
    this.positions = new Int32Array(INITIAL_SLOTS);
    this.freeIds.length = 0;
    this.nextId = 0;
    this.slots = new Array<TimerBucket<N> | undefined>(INITIAL_SLOTS).fill(undefined);
    this.slotShift = 32 - Math.log2(INITIAL_SLOTS);
    this.lastBucket = undefined;
    this.count = 0;
    if (this.lazyTimes !== undefined) {
      this.lazyTimes = new Float64Array(0);
      // Empty again: the flat form takes the timers that come.
      this.flat ??= new FlatTimerQueue();
      this.flat.clear();
    }
    this.stale = 0;
  }

  /** Whether the first timer of a key at a timestamp (a namespace, or an entry for a composite key) is `namespace`'s. */
  private sameNamespace(first: N | TimerEntry<N>, namespace: N): boolean {
    return this.same(first instanceof TimerEntry ? (first.namespace as N) : first, namespace);
  }

  /** Namespaces are the same when they are one object, or equal (two equal windows are one namespace). */
  private same(a: N, b: N): boolean {
    if (a === b) return true;
    const equals = this.equals;
    return equals !== undefined ? equals(a, b) : this.nsKey(a) === this.nsKey(b);
  }

  private timerOf(
    timestamp: number,
    slot: NormalizedKey | TimerEntry<N>,
    value: N | TimerEntry<N>,
  ): HeapTimer<N> {
    if (value instanceof TimerEntry) {
      return {
        timestamp,
        key: value.key,
        normalizedKey: value.normalizedKey,
        namespace: value.namespace as N,
      };
    }
    const key = slot as NormalizedKey;
    return { timestamp, key, normalizedKey: key, namespace: value };
  }

  /**
   * Turns a key list or a pair list into the Map form, in order (the lists' polled timers are gone already), or
   * gives a new bucket its Map.
   */
  private toMapForm(bucket: TimerBucket<N>): void {
    if (bucket.lazy) this.unlazy(bucket, bucket.list!);
    const form = (bucket.timers = new TimerMap<N>());
    const timers = form.map;
    const list = bucket.list;
    const pairs = bucket.pairs;
    if (list !== undefined) {
      const namespace = bucket.listNamespace!;
      for (let i = bucket.listHead; i < list.length; i++) timers.set(list[i]!, namespace);
    } else if (pairs !== undefined) {
      for (let i = bucket.listHead; i < bucket.pairsEnd; i += 2) {
        const normalizedKey = pairs[i] as NormalizedKey;
        const namespace = pairs[i + 1] as N;
        if (!timers.has(normalizedKey)) timers.set(normalizedKey, namespace);
        else {
          // A further namespace of a key at this timestamp: an entry of its own, as `add` makes it.
          const entry = new TimerEntry<N>(normalizedKey, normalizedKey, namespace);
          let more = (form.more ??= new Map()).get(normalizedKey);
          if (more === undefined) form.more.set(normalizedKey, (more = []));
          more.push(entry);
          timers.set(entry, entry);
        }
      }
    }
    bucket.list = undefined;
    bucket.pairs = undefined;
    bucket.pairsEnd = 0;
    bucket.listHead = 0;
    bucket.listNamespace = undefined;
  }

  /** Turns a short key list into a pair list, in order (the list's polled timers are gone already). */
  private toPairs(bucket: TimerBucket<N>, list: NormalizedKey[]): void {
    if (bucket.lazy) this.unlazy(bucket, list);
    const namespace = bucket.listNamespace;
    const head = bucket.listHead;
    // With room for the pair `add` is about to put in, and half as many again.
    const queued = 2 * (list.length - head);
    const pairs = new Array<unknown>(pairsCapacity(queued + 2));
    for (let i = head; i < list.length; i++) {
      pairs[2 * (i - head)] = list[i];
      pairs[2 * (i - head) + 1] = namespace;
    }
    for (let i = queued; i < pairs.length; i++) pairs[i] = undefined;
    bucket.pairs = pairs;
    bucket.pairsEnd = queued;
    bucket.list = undefined;
    bucket.listHead = 0;
    bucket.listNamespace = undefined;
  }

  /** Removes a timer from a pair list; an emptied bucket is dropped. */
  private removePair(
    bucket: TimerBucket<N>,
    pairs: unknown[],
    normalizedKey: NormalizedKey,
    namespace: N,
  ): boolean {
    const end = bucket.pairsEnd;
    for (let i = bucket.listHead; i < end; i += 2) {
      if (pairs[i] !== normalizedKey || !this.same(pairs[i + 1] as N, namespace)) continue;
      if (this.marked) {
        const held = pairs[i + 1] as N;
        if (this.isRetired(held)) continue;
        this.markUnqueued(held);
      }
      // The pairs behind move up, in order; by hand, as in the key list (`splice` allocates).
      const last = end - 2;
      for (let j = i; j < last; j++) pairs[j] = pairs[j + 2];
      pairs[last] = undefined;
      pairs[last + 1] = undefined;
      bucket.pairsEnd = last;
      this.count--;
      if (bucket.listHead === last) this.dropBucket(bucket);
      return true;
    }
    return false;
  }

  /** Reads the bucket's next queued timer into its head, unless it is there already. */
  private loadHead(form: TimerMap<N>): void {
    if (form.headSlot !== undefined) return;
    // A queued bucket holds a timer, and every timer is behind the cursor, so the cursor reaches one.
    const next = (form.cursor ??= form.map.entries()).next().value!;
    form.headSlot = next[0];
    form.headValue = next[1];
  }

  private clearHead(form: TimerMap<N>): void {
    form.headSlot = undefined;
    form.headValue = undefined;
  }

  private dropMore(form: TimerMap<N>, normalizedKey: NormalizedKey, list: TimerEntry<N>[], i: number): void {
    list.splice(i, 1);
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: memory only: an empty list finds nothing and takes the next entry
    if (list.length === 0) form.more!.delete(normalizedKey);
  }

  private bucketFor(timestamp: number): TimerBucket<N> {
    const last = this.lastBucket;
    // Stryker disable next-line ConditionalExpression: a cache; the table holds the same bucket
    if (last !== undefined && last.timestamp === timestamp) return last;
    const slot = slotOf(timestamp, this.slotShift);
    const high = highBits(timestamp);
    const low = timestamp | 0;
    let bucket = this.slots[slot];
    while (bucket !== undefined && !isTimestamp(bucket, timestamp, high, low)) bucket = bucket.nextInSlot;
    if (bucket === undefined) bucket = this.newBucket(timestamp, slot);
    this.lastBucket = bucket;
    return bucket;
  }

  /** The bucket of `timestamp`, if one is queued. */
  private findBucket(timestamp: number): TimerBucket<N> | undefined {
    const high = highBits(timestamp);
    const low = timestamp | 0;
    let bucket = this.slots[slotOf(timestamp, this.slotShift)];
    while (bucket !== undefined && !isTimestamp(bucket, timestamp, high, low)) bucket = bucket.nextInSlot;
    return bucket;
  }

  private newBucket(timestamp: number, slot: number): TimerBucket<N> {
    const bucket = new TimerBucket<N>(timestamp);
    const slots = this.slots;
    bucket.nextInSlot = slots[slot];
    slots[slot] = bucket;
    const heap = this.heap;
    const index = heap.length;
    if (index === this.times.length) {
      const times = new Float64Array(2 * index);
      times.set(this.times);
      this.times = times;
      const ids = new Int32Array(2 * index);
      ids.set(this.ids);
      this.ids = ids;
    }
    const id = this.freeIds.length > 0 ? this.freeIds.pop()! : this.nextId++;
    if (id === this.positions.length) {
      const positions = new Int32Array(2 * id);
      positions.set(this.positions);
      this.positions = positions;
    }
    bucket.id = id;
    this.ids[index] = id;
    heap.push(bucket);
    this.siftUp(index, timestamp);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: speed only: a full table's chains grow longer
    if (heap.length > slots.length) this.growSlots();
    return bucket;
  }

  /** Doubles the timestamp table, keeping chains short: every queued bucket is in the heap, so it is rehashed from there. */
  private growSlots(): void {
    const slots = new Array<TimerBucket<N> | undefined>(2 * this.slots.length).fill(undefined);
    // Stryker disable next-line ArithmeticOperator: speed only: any shift used alike by every lookup finds the buckets
    const shift = this.slotShift - 1;
    for (const bucket of this.heap) {
      const slot = slotOf(bucket.timestamp, shift);
      bucket.nextInSlot = slots[slot];
      slots[slot] = bucket;
    }
    this.slots = slots;
    this.slotShift = shift;
  }

  private dropBucket(bucket: TimerBucket<N>): void {
    const slots = this.slots;
    const slot = slotOf(bucket.timestamp, this.slotShift);
    let previous = slots[slot]!;
    if (previous === bucket) slots[slot] = bucket.nextInSlot;
    else {
      // A queued bucket is in its slot's chain.
      while (previous.nextInSlot !== bucket) previous = previous.nextInSlot!;
      previous.nextInSlot = bucket.nextInSlot;
    }
    bucket.nextInSlot = undefined;
    // Stryker disable next-line ConditionalExpression: forgetting a cached bucket only costs a table lookup
    if (this.lastBucket === bucket) this.lastBucket = undefined;
    const heap = this.heap;
    const last = heap.pop()!;
    this.freeIds.push(bucket.id);
    if (last !== bucket) {
      const index = this.positions[bucket.id]!;
      const timestamp = this.times[heap.length]!;
      heap[index] = last;
      this.ids[index] = this.ids[heap.length]!;
      this.times[index] = timestamp;
      this.siftUp(this.siftDown(index, timestamp), timestamp);
    }
  }

  /** Moves the bucket at `index`, of `timestamp`, up to its place. */
  private siftUp(index: number, timestamp: number): void {
    const heap = this.heap;
    const times = this.times;
    const ids = this.ids;
    const positions = this.positions;
    const bucket = heap[index]!;
    const id = ids[index]!;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parentTime = times[parentIndex]!;
      // Stryker disable next-line EqualityOperator: buckets have distinct timestamps
      if (parentTime <= timestamp) break;
      const parentId = ids[parentIndex]!;
      heap[index] = heap[parentIndex]!;
      times[index] = parentTime;
      ids[index] = parentId;
      positions[parentId] = index;
      index = parentIndex;
    }
    heap[index] = bucket;
    times[index] = timestamp;
    ids[index] = id;
    positions[id] = index;
  }

  /** Moves the bucket at `index`, of `timestamp`, down to its place; returns that place. */
  private siftDown(index: number, timestamp: number): number {
    const heap = this.heap;
    const times = this.times;
    const ids = this.ids;
    const positions = this.positions;
    const n = heap.length;
    const bucket = heap[index]!;
    const id = ids[index]!;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= n) break;
      const right = left + 1;
      // Stryker disable next-line EqualityOperator: buckets have distinct timestamps
      const child = right < n && times[right]! < times[left]! ? right : left;
      const childTime = times[child]!;
      // Stryker disable next-line all: buckets have distinct timestamps, and a bucket sifted too far down is sifted back up by dropBucket
      if (timestamp <= childTime) break;
      const childId = ids[child]!;
      heap[index] = heap[child]!;
      times[index] = childTime;
      ids[index] = childId;
      positions[childId] = index;
      index = child;
    }
    heap[index] = bucket;
    times[index] = timestamp;
    ids[index] = id;
    positions[id] = index;
    return index;
  }
}
