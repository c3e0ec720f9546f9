// NFAStateSerializer: writes a key's NFA state with its shared-buffer graph as flat tables, and reads it back.
import { deserialize, serialize } from 'node:v8';
import type { TypeSerializer } from '../../core/type-serializer.ts';
import { createState, type ComputationState } from './computation-state.ts';
import type { DeweyNumber } from './dewey-number.ts';
import type { JavaPriorityQueue } from './java-priority-queue.ts';
import type { NFAState } from './nfa-state.ts';
import {
  newSharedBufferEdge,
  newSharedBufferEvent,
  newSharedBufferNode,
  type SharedBufferEvent,
  type SharedBufferNode,
} from './shared-buffer/shared-buffer.ts';

/** The snapshot form: tables indexed by position; -1 stands for null. */
interface FlatNFAState {
  readonly version: 1;
  /** Per event: id, timestamp, refCounter (parallel arrays) and the element. */
  readonly eventIds: number[];
  readonly eventTimestamps: number[];
  readonly eventRefs: number[];
  readonly elements: unknown[];
  /** Per entry: event index, stage name, refCounter, and its edges as [target index, refCounter, version]. */
  readonly nodeEvents: number[];
  readonly nodePages: string[];
  readonly nodeRefs: number[];
  readonly nodeEdges: [number, number, DeweyNumber][][];
  /** Per partial / completed match: [state name, version, entry index, start ts, previous ts, start event index]. */
  readonly partialMatches: FlatComputationState[];
  readonly completedMatches: FlatComputationState[];
  readonly stateChanged: boolean;
  readonly newStartPartialMatch: boolean;
}

type FlatComputationState = [string, DeweyNumber, number, number, number, number];

/**
 * The NFA state holds the shared buffer as an object graph (partial match → entry → edges → earlier entries). V8's
 * structured clone would keep the sharing but recurses along the graph and overflows the stack on long paths
 * (a `oneOrMore` over thousands of events), and it would not renumber anything. This serializer walks the graph
 * iteratively from the partial and completed matches, numbers each event and entry once, and writes flat tables
 * (the events' elements are structured-cloned as before); reading rebuilds the same graph, sharing included, and
 * keeps the queues' array order, so matching resumes exactly where it was. O(events + entries + edges).
 */
export const nfaStateSerializer: TypeSerializer<NFAState> = {
  serialize(state: NFAState): Uint8Array {
    return serialize(flatten(state));
  },
  deserialize(bytes: Uint8Array): NFAState {
    return inflate(deserialize(bytes) as FlatNFAState);
  },
};

function flatten(state: NFAState): FlatNFAState {
  const eventIndex = new Map<SharedBufferEvent<unknown>, number>();
  const nodeIndex = new Map<SharedBufferNode<unknown>, number>();
  const nodes: SharedBufferNode<unknown>[] = [];
  const flat: FlatNFAState = {
    version: 1,
    eventIds: [],
    eventTimestamps: [],
    eventRefs: [],
    elements: [],
    nodeEvents: [],
    nodePages: [],
    nodeRefs: [],
    nodeEdges: [],
    partialMatches: [],
    completedMatches: [],
    stateChanged: state.stateChanged,
    newStartPartialMatch: state.newStartPartialMatch,
  };
  const eventAt = (e: SharedBufferEvent<unknown> | null): number => {
    if (e === null) return -1;
    let i = eventIndex.get(e);
    if (i === undefined) {
      i = flat.eventIds.length;
      eventIndex.set(e, i);
      flat.eventIds.push(e.id);
      flat.eventTimestamps.push(e.timestamp);
      flat.eventRefs.push(e.refCounter);
      flat.elements.push(e.element);
    }
    return i;
  };
  const nodeAt = (n: SharedBufferNode<unknown> | null): number => {
    if (n === null) return -1;
    let i = nodeIndex.get(n);
    if (i === undefined) {
      i = nodes.length;
      nodeIndex.set(n, i);
      nodes.push(n);
    }
    return i;
  };
  const flattenQueue = (q: JavaPriorityQueue<ComputationState>, into: FlatComputationState[]) => {
    for (const cs of q.items) {
      into.push([
        cs.currentStateName,
        cs.version,
        nodeAt(cs.previousBufferEntry),
        cs.startTimestamp,
        cs.previousTimestamp,
        eventAt(cs.startEventId),
      ]);
    }
  };
  flattenQueue(state.partialMatches, flat.partialMatches);
  flattenQueue(state.completedMatches, flat.completedMatches);
  // breadth first over the entries found so far; nodeAt appends newly reached ones
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    flat.nodeEvents.push(eventAt(n.event));
    flat.nodePages.push(n.pageName);
    flat.nodeRefs.push(n.refCounter);
    flat.nodeEdges.push(n.edges.map((e) => [nodeAt(e.target), e.refCounter, e.version]));
  }
  return flat;
}

function inflate(flat: FlatNFAState): NFAState {
  if (flat.version !== 1) throw new Error(`Unknown NFA state snapshot version ${String(flat.version)}`);
  const events: SharedBufferEvent<unknown>[] = flat.eventIds.map((id, i) =>
    newSharedBufferEvent(id, flat.eventTimestamps[i]!, flat.elements[i], flat.eventRefs[i]!),
  );
  // entries first (edges filled in below, as they may point at any entry)
  const nodes: SharedBufferNode<unknown>[] = flat.nodeEvents.map((e, i) =>
    newSharedBufferNode(events[e]!, flat.nodePages[i]!, flat.nodeRefs[i]!, null),
  );
  flat.nodeEdges.forEach((edges, i) => {
    const node = nodes[i]!;
    for (const [target, refCounter, version] of edges) {
      node.edges.push(newSharedBufferEdge(target < 0 ? null : nodes[target]!, version, refCounter));
    }
  });
  const queue = (items: FlatComputationState[]): JavaPriorityQueue<ComputationState> => ({
    items: items.map(([name, version, node, startTs, previousTs, startEvent]) =>
      createState(
        name,
        node < 0 ? null : nodes[node]!,
        version,
        startTs,
        previousTs,
        startEvent < 0 ? null : events[startEvent]!,
      ),
    ),
  });
  return {
    partialMatches: queue(flat.partialMatches),
    completedMatches: queue(flat.completedMatches),
    stateChanged: flat.stateChanged,
    newStartPartialMatch: flat.newStartPartialMatch,
  };
}
