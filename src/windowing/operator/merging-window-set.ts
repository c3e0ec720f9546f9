// MergingWindowSet: the in-flight windows of one key of a merging assigner, and the state window each keeps data in.
import { IllegalStateError } from '../../core/errors.ts';
import type { InternalValueState } from '../../state/internal-state.ts';
import type { NamespaceSerializer, VoidNamespace } from '../../state/namespace.ts';
import type { TypeSerializer } from '../../core/type-serializer.ts';
import { deserialize, serialize } from 'node:v8';
import { TimeWindow } from '../time-window.ts';
import type { MergingWindowAssigner } from '../window-assigner.ts';
import type { Window } from '../window.ts';

/** Called when windows merge: the merged window, the windows it swallowed, and their state windows. */
export type MergeFunction<W> = (
  mergeResult: W,
  mergedWindows: readonly W[],
  stateWindowResult: W,
  mergedStateWindows: readonly W[],
) => void;

/**
 * A key's in-flight windows as kept in state: window, state window, window, state window, ... (pairs laid flat, so
 * a session costs no array of its own), or, when the key's one window is its own state window (a session no element
 * has extended yet), that window alone: no array at all (64 bytes a key on the session benchmark, where a quarter of
 * the keys hold such a session). Serialized as [window, state window] pairs either way.
 */
export type MergingWindowPairs<W> = W[] | W;

/**
 * Flink's `MergingWindowSet`. When windows merge, one of the original windows stays the *state window* — the
 * namespace that holds the pane's contents — so merging never copies the accumulated contents of the bigger
 * side; only the smaller sides are merged into it. The set maps each in-flight window to its state window and is
 * kept in keyed state ("merging-window-set", one entry per key), so it is snapshotted and restored with the key.
 *
 * One instance per operator is re-loaded for the current key before use ({@link load}) and written back with
 * {@link persist}, which writes only when something changed.
 */
export class MergingWindowSet<W extends Window> {
  /**
   * The current key's windows, each followed by its state window: the array stored in state itself, changed in
   * place (no copy per element) and written back by {@link persist}. A fresh array when the key has none.
   */
  // Stryker disable next-line ArrayDeclaration: replaced by load() before any use
  private pairs: W[] = [];
  /**
   * The pairs of a key whose state holds its one window alone, or whose first window this set adds: one array the
   * set reuses for every such key, never stored (persist stores the window alone, or a copy).
   */
  private readonly loose: W[] = [];
  // Stryker disable next-line BooleanLiteral: replaced by load() before any use
  private changed = false;
  /** The state window of the window {@link addWindow} returned last. */
  private lastStateWindow: W | undefined = undefined;
  /** The one window a session's extension merges, lent to the merge function for the call. */
  private readonly oneMerged: (TimeWindow | undefined)[] = [undefined];
  /** The assigner's windows are TimeWindows that merge when they intersect: the single-pass path applies. */
  private readonly intersecting: boolean;

  constructor(
    private readonly assigner: MergingWindowAssigner<any, W>,
    private readonly state: InternalValueState<VoidNamespace, MergingWindowPairs<W>>,
    private readonly windowSerializer: NamespaceSerializer<W>,
  ) {
    this.intersecting = assigner.mergesIntersectingTimeWindows();
  }

  /** Reads the current key's windows from state (a key without any shares one frozen empty array). */
  load(): this {
    const stored = this.state.value();
    if (stored === undefined || stored === null) this.pairs = NO_PAIRS as W[];
    else if (Array.isArray(stored)) this.pairs = stored;
    else this.pairs = this.loosePair(stored);
    // Stryker disable next-line BooleanLiteral: a set marked changed only writes the same pairs back
    this.changed = false;
    return this;
  }

  /**
   * Writes the windows back to state if they changed: an empty set removes the key's entry, a window that is its own
   * state window and alone is stored as itself, and other pairs as their array (a copy of the reused one).
   */
  persist(): void {
    if (!this.changed) return;
    // Stryker disable next-line BooleanLiteral: a second persist would write the same pairs back
    this.changed = false;
    const pairs = this.pairs;
    if (pairs.length === 0) this.state.clear();
    else if (pairs.length === 2 && pairs[0] === pairs[1]) this.state.update(pairs[0]!);
    else this.state.update(pairs === this.loose ? pairs.slice() : pairs);
  }

  /** The window holding the state of in-flight `window`, or undefined if it is not in flight. */
  getStateWindow(window: W): W | undefined {
    const i = this.indexOf(window);
    return i < 0 ? undefined : this.pairs[i + 1];
  }

  /**
   * The state window of the window the last {@link addWindow} returned (what `getStateWindow` would say of it,
   * without searching the set again).
   */
  lastAddedStateWindow(): W | undefined {
    return this.lastStateWindow;
  }

  /** Removes a window from the in-flight set (it was purged for good or is late). */
  retireWindow(window: W): void {
    const i = this.indexOf(window);
    if (i < 0) throw new IllegalStateError(`Window ${String(window)} is not in in-flight window set.`);
    this.removeAt(i);
  }

  /** The in-flight windows (for tests and debugging). */
  inFlight(): readonly W[] {
    const windows: W[] = [];
    for (let i = 0; i < this.pairs.length; i += 2) windows.push(this.pairs[i]!);
    return windows;
  }

  /**
   * Adds a window, merging it with in-flight windows when the assigner says so, and returns the window it ended
   * up in: the new window itself, or the merged window that now contains it. `mergeFunction` is called for each
   * merge that involves windows that already had state (never with the new window among the merged ones).
   */
  addWindow(newWindow: W, mergeFunction: MergeFunction<W>): W {
    if (this.intersecting) {
      const window = newWindow as unknown as TimeWindow;
      return this.addIntersecting(
        window,
        window.start,
        window.end,
        mergeFunction as unknown as MergeFunction<TimeWindow>,
      ) as unknown as W;
    }
    const pairs = this.pairs;
    // Alone, a window has nothing to merge with: any group the assigner could report holds one distinct window.
    if (pairs.length === 0) {
      this.put(newWindow, newWindow);
      this.lastStateWindow = newWindow;
      return newWindow;
    }
    const candidates: W[] = [];
    for (let i = 0; i < pairs.length; i += 2) candidates.push(pairs[i]!);
    candidates.push(newWindow);
    const results: { mergeResult: W; merged: W[] }[] = [];
    this.assigner.mergeWindows(candidates, (toBeMerged, mergeResult) => {
      results.push({ mergeResult, merged: this.distinct(toBeMerged) });
    });

    let resultWindow = newWindow;
    let mergedNewWindow = false;
    for (const { mergeResult, merged } of results) {
      // Flink keeps these as Sets of equal-by-value windows; a "merge" of one distinct window is no merge.
      if (merged.length < 2) continue;
      let newIndex = -1;
      for (let i = 0; i < merged.length; i++) {
        if (this.same(merged[i]!, newWindow)) {
          newIndex = i;
          break;
        }
      }
      if (newIndex >= 0) {
        merged.splice(newIndex, 1);
        mergedNewWindow = true;
        resultWindow = mergeResult;
      }
      // Keep the state window of one of the merged windows as the state window of the result.
      const mergedStateWindow = this.getStateWindow(merged[0]!)!;
      const mergedStateWindows: W[] = [];
      for (const w of merged) {
        const i = this.indexOf(w);
        if (i >= 0) {
          const stateWindow = this.pairs[i + 1]!;
          this.removeAt(i);
          if (!this.same(stateWindow, mergedStateWindow)) mergedStateWindows.push(stateWindow);
        }
      }
      this.put(mergeResult, mergedStateWindow);
      // The new window merely fell inside an existing one: no state moves and the trigger need not know.
      const onlyItself = merged.length === 1 && this.same(merged[0]!, mergeResult);
      if (!onlyItself) mergeFunction(mergeResult, merged, mergedStateWindow, mergedStateWindows);
    }

    // The new window is self-contained. (Flink would also re-map an equal in-flight window to itself here and
    // lose track of its state window; keeping an existing mapping avoids that.)
    if (
      (results.length === 0 || (this.same(resultWindow, newWindow) && !mergedNewWindow)) &&
      this.indexOf(resultWindow) < 0
    ) {
      this.put(resultWindow, resultWindow);
    }
    this.lastStateWindow = this.getStateWindow(resultWindow);
    return resultWindow;
  }

  /**
   * `addWindow` of the window [`newStart`, `newEnd`) for an assigner whose windows merge exactly when they intersect
   * (`mergesIntersectingTimeWindows`), given as its bounds: the window object is made only if the set keeps it (it
   * merges with nothing), so an element that extends a session or falls inside one (most elements of a session
   * job) costs no window, and no list of one, for the window it was assigned. Returns what `addWindow` would.
   */
  addTimeWindow(newStart: number, newEnd: number, mergeFunction: MergeFunction<W>): W {
    return this.addIntersecting(
      undefined,
      newStart,
      newEnd,
      mergeFunction as unknown as MergeFunction<TimeWindow>,
    ) as unknown as W;
  }

  /**
   * `addWindow` for windows that merge exactly when they intersect, with the results of the general path. The
   * in-flight windows of a key never intersect one another (they would have merged), so the new window merges
   * with exactly the in-flight windows it intersects, into their cover, and one pass finds them. The state window
   * of the result is that of the earliest merged window, as `TimeWindow.mergeWindows`' sort by start makes it. The
   * new window is [`newStart`, `newEnd`), `newWindow` when the caller has it as an object (made here if kept).
   */
  private addIntersecting(
    newWindow: TimeWindow | undefined,
    newStart: number,
    newEnd: number,
    mergeFunction: MergeFunction<TimeWindow>,
  ): TimeWindow {
    const pairs = this.pairs as unknown as TimeWindow[];
    let first = -1;
    let count = 0;
    let start = newStart;
    let end = newEnd;
    for (let i = 0; i < pairs.length; i += 2) {
      const w = pairs[i]!;
      // TimeWindow.intersects, on the new window's bounds.
      if (!(w.start <= newEnd && w.end >= newStart)) continue;
      count++;
      if (first < 0 || w.start < pairs[first]!.start) first = i;
      if (w.start < start) start = w.start;
      if (w.end > end) end = w.end;
    }
    if (count === 0) {
      newWindow ??= new TimeWindow(newStart, newEnd);
      if (pairs.length === 0) this.pairs = this.loosePair(newWindow as unknown as W);
      else pairs.push(newWindow, newWindow);
      this.changed = true;
      this.lastStateWindow = newWindow as unknown as W;
      return newWindow;
    }
    const stateWindow = pairs[first + 1]!;
    if (count === 1) {
      const window = pairs[first]!;
      this.lastStateWindow = stateWindow as unknown as W;
      // The new window falls inside an in-flight one: no state moves and the trigger need not know.
      if (start === window.start && end === window.end) return window;
      // The common merge: the new window extends one session. Its pair takes the cover in place (the order of
      // the pairs means nothing), the state window stays and no other state window merges into it.
      const mergeResult = new TimeWindow(start, end);
      pairs[first] = mergeResult;
      this.changed = true;
      // The merged list is read during the call only (the trigger's onMerge, the state's merge), so one array
      // serves every extension: an allocation per grown session spared.
      const merged = this.oneMerged;
      merged[0] = window;
      mergeFunction(mergeResult, merged as TimeWindow[], stateWindow, NO_WINDOWS);
      merged[0] = undefined;
      return mergeResult;
    }
    const merged: TimeWindow[] = [];
    const mergedStateWindows: TimeWindow[] = [];
    for (let i = 0; i < pairs.length;) {
      const window = pairs[i]!;
      if (!(window.start <= newEnd && window.end >= newStart)) {
        i += 2;
        continue;
      }
      const windowState = pairs[i + 1]!;
      merged.push(window);
      if (windowState !== stateWindow && !this.same(windowState as unknown as W, stateWindow as unknown as W))
        mergedStateWindows.push(windowState);
      pairs.splice(i, 2);
    }
    if (merged.length > 1) merged.sort(byStart);
    if (mergedStateWindows.length > 1) mergedStateWindows.sort(byStart);
    const mergeResult = new TimeWindow(start, end);
    pairs.push(mergeResult, stateWindow);
    this.changed = true;
    this.lastStateWindow = stateWindow as unknown as W;
    mergeFunction(mergeResult, merged, stateWindow, mergedStateWindows);
    return mergeResult;
  }

  /** The reused array, holding `window` as its own state window. */
  private loosePair(window: W): W[] {
    const loose = this.loose;
    // Stryker disable next-line ConditionalExpression: only trims what a set left behind when it grew the array
    if (loose.length !== 2) loose.length = 2;
    loose[0] = window;
    loose[1] = window;
    return loose;
  }

  private distinct(windows: readonly W[]): W[] {
    const out: W[] = [];
    for (const w of windows) {
      let seen = false;
      for (let i = 0; i < out.length && !seen; i++) seen = this.same(out[i]!, w);
      if (!seen) out.push(w);
    }
    return out;
  }

  private same(a: W, b: W): boolean {
    if (a === b) return true;
    if (this.intersecting) {
      const x = a as unknown as TimeWindow;
      const y = b as unknown as TimeWindow;
      return x.start === y.start && x.end === y.end;
    }
    return this.windowSerializer.key(a) === this.windowSerializer.key(b);
  }

  private indexOf(window: W): number {
    const pairs = this.pairs;
    for (let i = 0; i < pairs.length; i += 2) if (this.same(pairs[i]!, window)) return i;
    return -1;
  }

  private put(window: W, stateWindow: W): void {
    const i = this.indexOf(window);
    if (i >= 0) this.pairs[i + 1] = stateWindow;
    else if (this.pairs.length === 0) this.pairs = [window, stateWindow];
    else this.pairs.push(window, stateWindow);
    this.changed = true;
  }

  /** Removes the window at `i` (an even index) and its state window. */
  private removeAt(i: number): void {
    // By hand, not splice, which allocates an array of the two removed elements for its result.
    const pairs = this.pairs;
    const n = pairs.length - 2;
    for (let j = i; j < n; j++) pairs[j] = pairs[j + 2]!;
    pairs.length = n;
    this.changed = true;
  }
}

/**
 * Serializes a key's windows with the window serializer, so windows come back as their class on restore. The bytes
 * hold [window, state window] pairs, as before the pairs were laid flat in memory: snapshots read the same.
 */
export function mergingWindowPairsSerializer<W>(
  windowSerializer: NamespaceSerializer<W>,
): TypeSerializer<MergingWindowPairs<W>> {
  const ws = windowSerializer.serializer;
  return {
    serialize(stored) {
      const pairs: [Uint8Array, Uint8Array][] = [];
      // Two serializations of a window alone, not one twice: v8.serialize writes a repeated object as a reference.
      if (!Array.isArray(stored)) pairs.push([ws.serialize(stored), ws.serialize(stored)]);
      else {
        const windows = stored as W[];
        for (let i = 0; i < windows.length; i += 2)
          pairs.push([ws.serialize(windows[i]!), ws.serialize(windows[i + 1]!)]);
      }
      return new Uint8Array(serialize(pairs));
    },
    deserialize(bytes) {
      const windows: W[] = [];
      for (const [w, s] of deserialize(bytes) as [Uint8Array, Uint8Array][])
        windows.push(ws.deserialize(w), ws.deserialize(s));
      return windows;
    },
  };
}

/**
 * The windows of a key that has none. A key's first window replaces it with an array of exactly one pair: pushed
 * onto an empty array, the pair took room for 19 elements (V8 grows an array by half plus 16), ~70 bytes more per
 * live session, and most keys of a session job hold one session.
 */
const NO_PAIRS: readonly unknown[] = Object.freeze([]);

/** The state windows merged when a window extends a single in-flight window: none. */
const NO_WINDOWS: readonly TimeWindow[] = Object.freeze([]);

function byStart(a: TimeWindow, b: TimeWindow): number {
  return a.start - b.start;
}
