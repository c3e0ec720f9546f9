// TimerHeap: a priority queue of timers with de-duplication and cheap deletion, grouped by timestamp.
import type { NormalizedKey } from '../state/key-hash.ts';

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
  /** The Map form (undefined until a bucket takes it; a bucket in no form yet is new and holds nothing). */
  timers: TimerMap<N> | undefined = undefined;
  /** The key list; its timers from `listHead` on are queued, the ones before it polled. */
  list: NormalizedKey[] | undefined = undefined;
  /**
   * The pair list (key, namespace, ...); its pairs from `listHead` to `pairsEnd` are queued, as in the key list.
   * Slots from `pairsEnd` on are room for further pairs (undefined, so that they hold no removed namespace).
   */
  pairs: unknown[] | undefined = undefined;
  pairsEnd = 0;
  listHead = 0;
  /** The namespace of every timer in the key list. */
  listNamespace: N | undefined = undefined;
  heapIndex = 0;
  /** The next bucket whose timestamp hashes to the same slot of the timestamp table (see {@link TimerHeap}). */
  nextInSlot: TimerBucket<N> | undefined = undefined;
  /**
   * The timestamp's high and low 32 bits as small integers ({@link highBits}, `timestamp | 0`), which the bucket holds
   * inline: `timestamp` is a heap number, a box of its own, and a lookup that compared it loaded that box, a cache
   * miss, for every bucket of the slot's chain.
   */
  readonly high: number;
  readonly low: number;
  /** Whether `high` and `low` are the timestamp exactly (a safe integer, -0 as 0), so that a lookup need not load it. */
  readonly exact: boolean;

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
 */
export class TimerHeap<N> {
  private readonly heap: TimerBucket<N>[] = [];
  /**
   * `times[i]` is `heap[i].timestamp`, unboxed: the sifts compare these, one array, instead of loading each child
   * bucket and its timestamp's box (two cache misses per comparison in a heap of thousands of buckets, where a
   * session's emptied bucket leaves from the middle). Grown by doubling; slots past the heap's length mean nothing.
   */
  private times = new Float64Array(INITIAL_SLOTS);
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
    for (const bucket of this.heap) {
      if (bucket.list === undefined || (this.marked && this.isRetired(bucket.listNamespace!))) continue;
      n += bucket.list.length - bucket.listHead;
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
    this.marked = true;
  }

  /** The earliest timer, without removing it. */
  peek(): HeapTimer<N> | undefined {
    const bucket = this.marked ? this.liveHead() : this.heap[0];
    if (bucket === undefined) return undefined;
    const list = bucket.list;
    if (list !== undefined)
      return this.timerOf(bucket.timestamp, list[bucket.listHead]!, bucket.listNamespace!);
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
    return (this.marked ? this.liveHead() : this.heap[0])?.timestamp;
  }

  /**
   * Adds a timer unless it exists. Returns true when added. A namespace's key is asked for only to tell it from
   * another namespace object of the same key and timestamp, so a window that registers its first timer (a session
   * window that grew) never builds its key here.
   */
  add(timestamp: number, key: unknown, normalizedKey: NormalizedKey, namespace: N): boolean {
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
          bucket.list = [normalizedKey];
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
    if (this.marked) {
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
    const bucket =
      // Stryker disable next-line ConditionalExpression,OptionalChaining: a cache; the table holds the same bucket
      this.lastBucket?.timestamp === timestamp ? this.lastBucket : this.findBucket(timestamp);
    if (bucket === undefined) return false;
    const pairs = bucket.pairs;
    if (pairs !== undefined) return this.removePair(bucket, pairs, normalizedKey, namespace);
    const list = bucket.list;
    if (list !== undefined) {
      if (list.length - bucket.listHead <= SCANNED_LIST) {
        // A list holds timers of its one namespace: another namespace has no timer here.
        if (namespace !== bucket.listNamespace && !this.same(bucket.listNamespace!, namespace)) return false;
        // A retired namespace was held by one timer: this list's only one, which is no timer.
        if (this.marked && this.isRetired(bucket.listNamespace!)) return false;
        const i = list.indexOf(normalizedKey, bucket.listHead);
        if (i < 0) return false;
        if (this.marked) this.markUnqueued(bucket.listNamespace!);
        // Polled keys stay before listHead; the queued ones behind the removed key move up, in order. By hand:
        // `splice` allocates the array of removed elements it returns, and setting `length` is a runtime call.
        const last = list.length - 1;
        for (let j = i; j < last; j++) list[j] = list[j + 1]!;
        list.pop();
        this.count--;
        if (bucket.listHead === list.length) this.dropBucket(bucket);
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

  /** Removes and returns the earliest timer. */
  poll(): HeapTimer<N> | undefined {
    const bucket = this.marked ? this.liveHead() : this.heap[0];
    if (bucket === undefined) return undefined;
    // The lists hold plain keys and their namespaces, never an entry object: the timer is built without asking
    // (`timerOf`'s type test loaded the namespace object, a cache miss per polled session timer).
    const list = bucket.list;
    if (list !== undefined) {
      const key = list[bucket.listHead++]!;
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
    return this.heap[0]?.listNamespace;
  }

  /**
   * {@link poll} of a timer the caller knows the timestamp and namespace of, returning only its key, so no timer
   * object is made: the earliest timer if it is (`timestamp`, `namespace`) and its bucket is a key list, else
   * undefined (no key is undefined), leaving the heap as it was. Polling a window end's timers this way until it
   * answers undefined takes the same timers in the same order as {@link poll} would, each when `poll` would give it,
   * whatever is added or removed in between.
   */
  pollListed(timestamp: number, namespace: N): NormalizedKey | undefined {
    const bucket = this.heap[0];
    if (bucket === undefined || this.marked) return undefined;
    const list = bucket.list;
    if (list === undefined || bucket.listNamespace !== namespace || bucket.timestamp !== timestamp)
      return undefined;
    const key = list[bucket.listHead++]!;
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
    const buckets = [...this.heap].sort((a, b) => a.timestamp - b.timestamp);
    for (const bucket of buckets) {
      const list = bucket.list;
      if (list !== undefined) {
        if (this.marked && this.isRetired(bucket.listNamespace!)) continue;
        for (let i = bucket.listHead; i < list.length; i++)
          all.push(this.timerOf(bucket.timestamp, list[i]!, bucket.listNamespace!));
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
    this.slots = new Array<TimerBucket<N> | undefined>(INITIAL_SLOTS).fill(undefined);
    this.slotShift = 32 - Math.log2(INITIAL_SLOTS);
    this.lastBucket = undefined;
    this.count = 0;
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
    }
    bucket.heapIndex = index;
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
    if (last !== bucket) {
      const index = bucket.heapIndex;
      const timestamp = this.times[heap.length]!;
      heap[index] = last;
      last.heapIndex = index;
      this.times[index] = timestamp;
      this.siftUp(this.siftDown(index, timestamp), timestamp);
    }
  }

  /** Moves the bucket at `index`, of `timestamp`, up to its place. */
  private siftUp(index: number, timestamp: number): void {
    const heap = this.heap;
    const times = this.times;
    const bucket = heap[index]!;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parentTime = times[parentIndex]!;
      // Stryker disable next-line EqualityOperator: buckets have distinct timestamps
      if (parentTime <= timestamp) break;
      const parent = heap[parentIndex]!;
      heap[index] = parent;
      times[index] = parentTime;
      parent.heapIndex = index;
      index = parentIndex;
    }
    heap[index] = bucket;
    times[index] = timestamp;
    bucket.heapIndex = index;
  }

  /** Moves the bucket at `index`, of `timestamp`, down to its place; returns that place. */
  private siftDown(index: number, timestamp: number): number {
    const heap = this.heap;
    const times = this.times;
    const n = heap.length;
    const bucket = heap[index]!;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= n) break;
      const right = left + 1;
      // Stryker disable next-line EqualityOperator: buckets have distinct timestamps
      const child = right < n && times[right]! < times[left]! ? right : left;
      const childTime = times[child]!;
      // Stryker disable next-line all: buckets have distinct timestamps, and a bucket sifted too far down is sifted back up by dropBucket
      if (timestamp <= childTime) break;
      const c = heap[child]!;
      heap[index] = c;
      times[index] = childTime;
      c.heapIndex = index;
      index = child;
    }
    heap[index] = bucket;
    times[index] = timestamp;
    bucket.heapIndex = index;
    return index;
  }
}
