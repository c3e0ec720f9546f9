// SharedBufferAccessor: adding, locking, releasing and reading back versioned paths of the shared buffer.
import { isCompatibleWith, type DeweyNumber } from '../dewey-number.ts';
import { eventIdToString } from './event-id.ts';
import {
  newSharedBufferEdge,
  newSharedBufferNode,
  REMOVED,
  type SharedBuffer,
  type SharedBufferEvent,
  type SharedBufferNode,
} from './shared-buffer.ts';

/** A match as stored events: stage name to its events, stages in the order of their first event. */
export type EventIdMatch<V = unknown> = Map<string, SharedBufferEvent<V>[]>;

/**
 * The operations the NFA performs on the {@link SharedBuffer} (Flink's `SharedBufferAccessor`).
 *
 * Reference counting, as in Flink: an event is locked once while it is being processed and once per entry that
 * holds it; an entry (node) is locked once per partial match pointing at it and once per edge pointing at it; an
 * edge is locked once per partial match whose version is compatible with it. `releaseNode` walks back along
 * compatible edges and removes whatever drops to zero, so a path shared by several partial matches is freed when
 * the last of them completes, times out or is pruned — memory follows live partial matches, not events seen.
 *
 * Costs: `put` O(entries of the current event); `lockNode` O(edges of the node); `releaseNode` O(edges freed);
 * `extractFirstPath` O(length of the path) when a partial match has one path (the usual case). Nothing here
 * allocates except new entries and edges; the walk stacks are reused.
 */
export class SharedBufferAccessor<V> {
  /** Entries of the event registered last, so partial matches taking it into the same stage share one entry. */
  // Stryker disable next-line ArrayDeclaration: emptied by registerEvent before the first put that reads it
  private readonly currentNodes: SharedBufferNode<V>[] = [];
  private currentEvent: SharedBufferEvent<V> | null = null;
  // Stryker disable next-line ArrayDeclaration: scratch, each slot written before it is read
  private readonly walkNodes: (SharedBufferNode<V> | null)[] = [];
  // Stryker disable next-line ArrayDeclaration: scratch, each slot written before it is read
  private readonly walkVersions: DeweyNumber[] = [];
  // Stryker disable next-line ArrayDeclaration: scratch, each slot written before it is read
  private readonly walkDepths: number[] = [];
  // Stryker disable next-line ArrayDeclaration: scratch, each slot written before it is read
  private readonly pathScratch: SharedBufferNode<V>[] = [];

  constructor(readonly buffer: SharedBuffer<V>) {}

  /** See {@link SharedBuffer.pin}: one counter read and write per NFA call instead of one per change. */
  pin(): void {
    this.buffer.pin();
  }

  unpin(): void {
    this.buffer.unpin();
  }

  registerEvent(value: V, timestamp: number): SharedBufferEvent<V> {
    const event = this.buffer.registerEvent(value, timestamp);
    this.currentEvent = event;
    this.currentNodes.length = 0;
    return event;
  }

  /**
   * Stores that stage `stageName` took `event` after `previous` (null at the start of a match), on an edge stamped
   * `version`. Returns the entry. Entries are shared per (event, stage) for the event registered last — the only
   * event the NFA stores into.
   */
  put(
    stageName: string,
    event: SharedBufferEvent<V>,
    previous: SharedBufferNode<V> | null,
    version: DeweyNumber,
  ): SharedBufferNode<V> {
    if (previous !== null) this.lockNode(previous, version);
    let node: SharedBufferNode<V> | undefined;
    const shared = event === this.currentEvent;
    if (shared) {
      const nodes = this.currentNodes;
      for (let i = 0; i < nodes.length; i++) {
        const n = nodes[i]!;
        if (n.pageName === stageName && n.refCounter !== REMOVED) {
          node = n;
          break;
        }
      }
    }
    const edge = newSharedBufferEdge(previous, version, 0);
    if (node !== undefined) {
      node.edges.push(edge);
      return node;
    }
    node = newSharedBufferNode(event, stageName, 0, edge);
    this.lockEvent(event);
    this.buffer.adjust(0, 1);
    if (shared) this.currentNodes.push(node);
    return node;
  }

  /**
   * Every path that leads back from `node` to the start of a match along edges compatible with `version`
   * (depth first, last compatible edge first, as Flink), each as stage name → events in event order.
   */
  extractPatterns(node: SharedBufferNode<V>, version: DeweyNumber): EventIdMatch<V>[] {
    const result: EventIdMatch<V>[] = [];
    if (node.refCounter === REMOVED) return result;
    const stack: { entry: SharedBufferNode<V> | null; version: DeweyNumber; path: SharedBufferNode<V>[] }[] =
      [{ entry: node, version, path: [] }];
    while (stack.length > 0) {
      const state = stack.pop()!;
      const path = state.path;
      const entry = state.entry;
      if (entry === null) {
        const complete: EventIdMatch<V> = new Map();
        while (path.length > 0) {
          const n = path.pop()!;
          let values = complete.get(n.pageName);
          if (values === undefined) complete.set(n.pageName, (values = []));
          values.push(n.event);
        }
        result.push(complete);
        continue;
      }
      path.push(entry);
      // Stryker disable next-line BooleanLiteral: copying the first path too only costs an allocation
      let firstMatch = true;
      for (const edge of entry.edges) {
        if (!isCompatibleWith(state.version, edge.version)) continue;
        let newPath = path;
        // Stryker disable next-line ConditionalExpression: as above (sharing the path with a second edge is caught by the tests, but shares this line)
        if (firstMatch) firstMatch = false;
        else newPath = path.slice();
        stack.push({ entry: edge.target, version: edge.version, path: newPath });
      }
    }
    return result;
  }

  /**
   * The first path {@link extractPatterns} would return, without building it: fills `out` with its entries, the
   * latest first, and returns their number (0 when there is none; `out` beyond that is stale). O(path length) when
   * the partial match has a single path; allocates nothing once the reused stacks have grown.
   */
  extractFirstPath(node: SharedBufferNode<V>, version: DeweyNumber, out: SharedBufferNode<V>[]): number {
    if (node.refCounter === REMOVED) return 0;
    const nodes = this.walkNodes;
    const versions = this.walkVersions;
    const depths = this.walkDepths;
    nodes[0] = node;
    versions[0] = version;
    depths[0] = 0;
    let sp = 1;
    // Same order as extractPatterns: a LIFO stack. A state at depth d is popped before anything pushed earlier, and
    // everything popped in between lies at depth >= d, so out[0..d) still holds its path.
    while (sp > 0) {
      sp--;
      const entry = nodes[sp]!;
      nodes[sp] = null;
      const v = versions[sp]!;
      const depth = depths[sp]!;
      if (entry === null) {
        this.clearWalk(sp);
        return depth;
      }
      out[depth] = entry;
      const edges = entry.edges;
      for (let i = 0; i < edges.length; i++) {
        const edge = edges[i]!;
        if (!isCompatibleWith(v, edge.version)) continue;
        nodes[sp] = edge.target;
        versions[sp] = edge.version;
        depths[sp] = depth + 1;
        sp++;
      }
    }
    return 0;
  }

  /** Drops the references left on the walk stack below `sp` (the arrays keep their capacity). */
  // Stryker disable next-line BlockStatement: the slots are written before they are read; clearing them only lets the collector free the entries
  private clearWalk(sp: number): void {
    const nodes = this.walkNodes;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: as above
    for (let i = 0; i < sp; i++) nodes[i] = null;
  }

  /**
   * The match on the first path back from `node` (what `materializeMatch(extractPatterns(node, version)[0])`
   * returns), built without the intermediate maps: O(path length). Empty when there is no path.
   */
  materializeFirstPath(node: SharedBufferNode<V>, version: DeweyNumber): Record<string, V[]> {
    const path = this.pathScratch;
    const n = this.extractFirstPath(node, version, path);
    const out: Record<string, V[]> = {};
    for (let i = n - 1; i >= 0; i--) {
      const entry = path[i]!;
      path[i] = undefined!;
      const events = out[entry.pageName];
      if (events === undefined) out[entry.pageName] = [entry.event.element];
      else events.push(entry.event.element);
    }
    return out;
  }

  /** Replaces stored events with their elements, as a plain object keyed by stage name (first event order). */
  materializeMatch(match: EventIdMatch<V>): Record<string, V[]> {
    const out: Record<string, V[]> = {};
    for (const [stage, events] of match) {
      // Stryker disable next-line ArrayDeclaration: an empty array grows to the same elements; the size only saves the growing
      const elements = new Array<V>(events.length);
      for (let i = 0; i < events.length; i++) elements[i] = events[i]!.element;
      out[stage] = elements;
    }
    return out;
  }

  /** Locks an entry and its edges compatible with `version` (one more partial match or edge depends on them). */
  lockNode(node: SharedBufferNode<V>, version: DeweyNumber): void {
    if (node.refCounter === REMOVED) return;
    node.refCounter++;
    const edges = node.edges;
    for (let i = 0; i < edges.length; i++) {
      const edge = edges[i]!;
      if (isCompatibleWith(version, edge.version)) edge.refCounter++;
    }
  }

  /**
   * Releases an entry held by a partial match of `version`: compatible edges lose a lock, edges at zero are
   * removed and their targets released in turn; an entry at zero is removed with its event's lock.
   */
  releaseNode(node: SharedBufferNode<V>, version: DeweyNumber): void {
    const nodes = this.walkNodes;
    const versions = this.walkVersions;
    nodes[0] = node;
    versions[0] = version;
    let sp = 1;
    let removedEntries = 0;
    while (sp > 0) {
      sp--;
      const current = nodes[sp]!;
      nodes[sp] = null;
      // Flink stops the whole walk (not just this branch) at a missing entry; kept for identical behaviour.
      if (current.refCounter === REMOVED) break;
      const currentVersion = versions[sp]!;
      const edges = current.edges;
      let w = 0;
      for (let i = 0; i < edges.length; i++) {
        const edge = edges[i]!;
        if (isCompatibleWith(currentVersion, edge.version) && release(edge)) {
          if (edge.target !== null) {
            nodes[sp] = edge.target;
            versions[sp] = edge.version;
            sp++;
          }
          continue;
        }
        edges[w++] = edge;
      }
      // Stryker disable next-line ConditionalExpression: setting the length it already has changes nothing
      if (w !== edges.length) edges.length = w;
      if (release(current)) {
        current.refCounter = REMOVED;
        removedEntries++;
        this.releaseEvent(current.event);
      }
    }
    this.clearWalk(sp);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: adjusting by zero entries writes the same counts
    if (removedEntries > 0) this.buffer.adjust(0, -removedEntries);
  }

  /** Drops one lock of an event; removes it at zero. */
  releaseEvent(event: SharedBufferEvent<V>): void {
    if (event.refCounter === REMOVED) return;
    if (release(event)) {
      event.refCounter = REMOVED;
      this.buffer.adjust(-1, 0);
    }
  }

  private lockEvent(event: SharedBufferEvent<V>): void {
    if (event.refCounter === REMOVED)
      throw new Error(`Referring to non existent event with id ${eventIdToString(event)}`);
    event.refCounter++;
  }
}

/** Flink's `Lockable.release`: true when the counter is (or drops to) zero. */
function release(lockable: { refCounter: number }): boolean {
  if (lockable.refCounter <= 0) return true;
  lockable.refCounter -= 1;
  return lockable.refCounter === 0;
}
