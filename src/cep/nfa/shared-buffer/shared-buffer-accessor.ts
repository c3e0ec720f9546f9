// SharedBufferAccessor: adding, locking, releasing and reading back versioned paths of the shared buffer.
import { isCompatibleWith, type DeweyNumber } from '../dewey-number.ts';
import { newNodeId, type EventId, type NodeId } from './event-id.ts';
import type { SharedBuffer, SharedBufferNode } from './shared-buffer.ts';

/** A match as event ids: stage name to the ids of its events, stages in the order of their first event. */
export type EventIdMatch = Map<string, EventId[]>;

/**
 * The operations the NFA performs on the {@link SharedBuffer} (Flink's `SharedBufferAccessor`).
 *
 * Reference counting, as in Flink: an event is locked once while it is being processed and once per entry that
 * holds it; an entry (node) is locked once per partial match pointing at it and once per edge pointing at it; an
 * edge is locked once per partial match whose version is compatible with it. `releaseNode` walks back along
 * compatible edges and removes whatever drops to zero, so a path shared by several partial matches is freed when
 * the last of them completes, times out or is pruned — memory follows live partial matches, not events seen.
 */
export class SharedBufferAccessor<V> {
  constructor(readonly buffer: SharedBuffer<V>) {}

  registerEvent(value: V, timestamp: number): EventId {
    return this.buffer.registerEvent(value, timestamp);
  }

  advanceTime(timestamp: number): void {
    this.buffer.advanceTime(timestamp);
  }

  /**
   * Stores that stage `stageName` took the event `eventId` after `previous` (null at the start of a match), on an
   * edge stamped `version`. Returns the entry's id.
   */
  put(stageName: string, eventId: EventId, previous: NodeId | null, version: DeweyNumber): NodeId {
    if (previous !== null) this.lockNode(previous, version);
    const nodeId = newNodeId(eventId, stageName);
    let node = this.buffer.getEntry(nodeId);
    if (node === undefined) {
      node = { refCounter: 0, edges: [] };
      this.lockEvent(eventId);
    }
    node.edges.push({ target: previous, version, refCounter: 0 });
    this.buffer.upsertEntry(nodeId, node);
    return nodeId;
  }

  /**
   * Every path that leads back from `nodeId` to the start of a match along edges compatible with `version`
   * (depth first, as Flink), each as stage name → event ids in event order.
   */
  extractPatterns(nodeId: NodeId, version: DeweyNumber): EventIdMatch[] {
    const result: EventIdMatch[] = [];
    const start = this.buffer.getEntry(nodeId);
    if (start === undefined) return result;
    type Step = { id: NodeId; node: SharedBufferNode } | null;
    const stack: { entry: Step; version: DeweyNumber; path: { id: NodeId; node: SharedBufferNode }[] }[] = [
      { entry: { id: nodeId, node: start }, version, path: [] },
    ];
    while (stack.length > 0) {
      const state = stack.pop()!;
      const path = state.path;
      const entry = state.entry;
      if (entry === null) {
        const complete: EventIdMatch = new Map();
        while (path.length > 0) {
          const id = path.pop()!.id;
          let values = complete.get(id.pageName);
          if (values === undefined) complete.set(id.pageName, (values = []));
          values.push(id.eventId);
        }
        result.push(complete);
        continue;
      }
      path.push(entry);
      let firstMatch = true;
      for (const edge of entry.node.edges) {
        if (!isCompatibleWith(state.version, edge.version)) continue;
        const target = edge.target;
        let newPath = path;
        if (firstMatch) firstMatch = false;
        else newPath = path.slice();
        stack.push({
          entry: target !== null ? { id: target, node: this.buffer.getEntry(target)! } : null,
          version: edge.version,
          path: newPath,
        });
      }
    }
    return result;
  }

  /** Replaces event ids with the events, as a plain object keyed by stage name (key order: first event order). */
  materializeMatch(match: EventIdMatch): Record<string, V[]> {
    const out: Record<string, V[]> = {};
    for (const [stage, ids] of match) {
      const events = new Array<V>(ids.length);
      for (let i = 0; i < ids.length; i++) events[i] = this.buffer.getEvent(ids[i]!)!.element;
      out[stage] = events;
    }
    return out;
  }

  /** Locks an entry and its edges compatible with `version` (one more partial match or edge depends on them). */
  lockNode(node: NodeId, version: DeweyNumber): void {
    const entry = this.buffer.getEntry(node);
    if (entry === undefined) return;
    entry.refCounter++;
    for (const edge of entry.edges) if (isCompatibleWith(version, edge.version)) edge.refCounter++;
    this.buffer.upsertEntry(node, entry);
  }

  /**
   * Releases an entry held by a partial match of `version`: compatible edges lose a lock, edges at zero are
   * removed and their targets released in turn; an entry at zero is removed with its event's lock.
   */
  releaseNode(node: NodeId, version: DeweyNumber): void {
    const nodes: NodeId[] = [node];
    const versions: DeweyNumber[] = [version];
    while (nodes.length > 0) {
      const current = nodes.pop()!;
      const entry = this.buffer.getEntry(current);
      // Flink stops the whole walk (not just this branch) at a missing entry; kept for identical behaviour.
      if (entry === undefined) break;
      const currentVersion = versions.pop()!;
      const edges = entry.edges;
      let w = 0;
      for (let i = 0; i < edges.length; i++) {
        const edge = edges[i]!;
        if (isCompatibleWith(currentVersion, edge.version) && release(edge)) {
          if (edge.target !== null) {
            nodes.push(edge.target);
            versions.push(edge.version);
          }
          continue;
        }
        edges[w++] = edge;
      }
      edges.length = w;
      if (release(entry)) {
        this.buffer.removeEntry(current);
        this.releaseEvent(current.eventId);
      } else {
        this.buffer.upsertEntry(current, entry);
      }
    }
  }

  /** Drops one lock of an event; removes it at zero. */
  releaseEvent(eventId: EventId): void {
    const event = this.buffer.getEvent(eventId);
    if (event === undefined) return;
    if (release(event)) this.buffer.removeEvent(eventId);
    else this.buffer.upsertEvent(eventId, event);
  }

  private lockEvent(eventId: EventId): void {
    const event = this.buffer.getEvent(eventId);
    if (event === undefined) throw new Error(`Referring to non existent event with id ${eventId.key}`);
    event.refCounter++;
    this.buffer.upsertEvent(eventId, event);
  }
}

/** Flink's `Lockable.release`: true when the counter is (or drops to) zero. */
function release(lockable: { refCounter: number }): boolean {
  if (lockable.refCounter <= 0) return true;
  lockable.refCounter -= 1;
  return lockable.refCounter === 0;
}
