// ThreadExchange: one thread's channels to and from subtasks on other threads, over MessagePorts.
import { createRequire } from 'node:module';
import type { MessagePort } from 'node:worker_threads';
import type * as Msgpackr from 'msgpackr';
import { WeirError } from '../core/errors.ts';
import type { StreamEdge, StreamGraph } from '../graph/stream-graph.ts';
import type { CheckpointBarrier } from './checkpoint-barrier.ts';
import type { DeclaredType } from '../core/tagged-union-type.ts';
import { MAX_WATERMARK, MIN_WATERMARK } from '../core/time-domain.ts';
import { BusyTimeTracker } from './busy-time-tracker.ts';
import { BARRIER, END, RECORD, STATUS, WATERMARK } from './exchange-event-kinds.ts';
import type { InputChannel } from './input-channel.ts';
import { OutboundChannel, type OutboundBatch, type OutboundLink } from './outbound-channel.ts';
import type { Subtask } from './subtask.ts';
import { keepBatchBuffer } from './kept-batch-buffers.ts';
import { mutableExchangeFigures } from './thread-exchange-figures.ts';
import { deliverTypedBatch, describeMismatch } from './typed-record-batch.ts';

/**
 * Events per batch: enough to amortise a message (its encoding call, the transfer, the consumer thread's wake-up and a
 * credit back), few enough to keep memory small (credits × batch size per channel: for a declared record of four
 * numbers, 48 bytes an event, 4 × 786 kB). A batch also goes at the end of a turn, so a larger one adds no latency
 * beyond the turn's. 16,384 instead of 4,096 cut what a record costs to cross threads by about 10 ns of CPU
 * (docs/performance.md, "One keyBy exchange between threads").
 */
export const DEFAULT_BATCH_SIZE = 16_384;
/** Batches a consumer takes per channel before it grants more (Flink's exclusive buffers per channel). */
export const DEFAULT_CREDITS = 4;

/** A record could not be encoded to cross threads: names the operator, the edge and the field. */
export class RecordSerializationError extends WeirError {}

/** The consumer's side of one channel from another thread. */
class InboundChannel {
  /** Batches processed whose credit is held back (the channel is blocked, or what it feeds is congested). */
  owed = 0;
  /** Congested outbound channels this channel's records reach on this thread. */
  withheld = 0;
  /** Buffers of typed batches processed, to go back to the producer with their credits. */
  buffers: ArrayBuffer[] = [];
  constructor(
    readonly channel: InputChannel,
    readonly id: number,
    readonly peer: Peer,
    /** The producer's declared record type, when it has one: its batches arrive as typed record batches. */
    readonly recordType: DeclaredType | undefined,
  ) {}
}

/** The record type a channel on `edge` writes with: the producer's declared type, for its main output only. */
function recordTypeOf(edge: StreamEdge): DeclaredType | undefined {
  return edge.sideTag === undefined ? edge.source.transformation.outputType : undefined;
}

let codec: typeof Msgpackr | undefined;

/**
 * msgpackr, loaded when a job first exchanges records without a declared type between threads: it loads its native
 * accelerator (msgpackr-extract) with it, and `import 'weir'` must load no native addon for jobs on one thread.
 */
function msgpackr(): typeof Msgpackr {
  // Stryker disable next-line AssignmentOperator: `&&=` differs only before the first load in a process (then it never loads); a process's test runner has loaded msgpackr before any mutant is active, and a later require returns the same module
  codec ??= createRequire(import.meta.url)('msgpackr') as typeof Msgpackr;
  return codec;
}

/** One other thread: the port to it and the codec state of each direction. */
class Peer {
  private encoder: Msgpackr.Packr | undefined = undefined;
  private decoder: Msgpackr.Unpackr | undefined = undefined;
  /** Made when a batch without a declared record type first crosses to this peer (typed batches need none). */
  get packr(): Msgpackr.Packr {
    return (this.encoder ??= new (msgpackr().Packr)({
      useRecords: true,
      moreTypes: true,
      writeFunction: rejectFunction,
    }));
  }
  get unpackr(): Msgpackr.Unpackr {
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: an Unpackr reads records and extension types whatever its options say; they tell a Packr what to write
    return (this.decoder ??= new (msgpackr().Unpackr)({ useRecords: true, moreTypes: true }));
  }
  /**
   * Credit grants collected while handling one message, sent as one reply: (channel, credits, buffers) triples,
   * then the list of the buffers given back ({@link returned}), each channel's in turn.
   */
  grants: (number | ArrayBuffer[])[] = [];
  /** Buffers of typed batches going back with the grants, transferred. */
  returned: ArrayBuffer[] = [];
  constructor(
    readonly host: number,
    readonly port: MessagePort,
  ) {}
}

const figures = mutableExchangeFigures();

/** Times nothing: the tracker of an exchange no job has claimed yet. */
const UNTIMED = new BusyTimeTracker(false);

function rejectFunction(): never {
  throw new TypeError('a function cannot cross threads');
}

/**
 * Carries the channels between this thread's subtasks and those of other threads. A producer's router writes into
 * an {@link OutboundChannel}; its batches are encoded with msgpackr (record structures written once per batch, then
 * positional values: measured about twice as fast as structured clone for flat records, see docs/performance.md),
 * transferred as an ArrayBuffer, and replayed here into the consumer's {@link InputChannel}, which then behaves
 * exactly as for a local producer (barrier alignment, watermark valve, end of input).
 *
 * Channel ids are computed from the graph alone (edge position, producer and consumer index), so both threads
 * agree on them without a handshake. Credits go back once a batch has been processed, unless the consumer's
 * channel is blocked for barrier alignment or what it feeds on this thread is congested: then they are owed
 * until that ends, and the producer, out of credit, stops polling its sources.
 */
export class ThreadExchange implements OutboundLink {
  private readonly peers = new Map<number, Peer>();
  private readonly inbound = new Map<number, InboundChannel>();
  private readonly outbound = new Map<number, OutboundChannel>();
  private readonly edgeIndex = new Map<StreamEdge, number>();
  /** Channels written to in this turn, flushed together at its end. */
  private dirty: OutboundChannel[] = [];
  private closed = false;
  /**
   * The busy-time tracker of the job whose subtasks this thread runs (the JobRuntime sets it): each batch delivered is
   * one of its roots. A disabled one until then, as with metrics off.
   */
  timing: BusyTimeTracker = UNTIMED;
  private readonly flushAll = (): void => {
    const dirty = this.dirty;
    this.dirty = [];
    try {
      for (const channel of dirty) channel.flush();
    } catch (error) {
      this.fail(error);
    }
  };

  constructor(
    graph: StreamGraph,
    ports: ReadonlyMap<number, MessagePort>,
    /** Fails the job (a record that cannot be encoded, a consumer that failed on a batch). */
    private readonly fail: (error: unknown) => void,
    private readonly batchSize = DEFAULT_BATCH_SIZE,
    private readonly credits = DEFAULT_CREDITS,
  ) {
    let i = 0;
    for (const node of graph.nodes) for (const edge of node.outputs) this.edgeIndex.set(edge, i++);
    for (const [host, port] of ports) this.peers.set(host, new Peer(host, port));
  }

  /** The id of the channel from producer subtask `p` to consumer subtask `c` on `edge`, equal on every thread. */
  channelId(edge: StreamEdge, p: number, c: number): number {
    return (this.edgeIndex.get(edge)! * 65_536 + p) * 65_536 + c;
  }

  /** A producer's channel to consumer subtask `c` on thread `host`. */
  openOutbound(edge: StreamEdge, p: number, c: number, host: number): OutboundChannel {
    const channel = new OutboundChannel(
      this,
      this.channelId(edge, p, c),
      edge,
      p,
      c,
      host,
      this.credits,
      this.batchSize,
      recordTypeOf(edge),
    );
    this.peer(host);
    this.outbound.set(channel.id, channel);
    return channel;
  }

  /** Registers a consumer's channel from producer subtask `p` on thread `host`. */
  openInbound(edge: StreamEdge, p: number, c: number, host: number, channel: InputChannel): void {
    const id = this.channelId(edge, p, c);
    const inbound = new InboundChannel(channel, id, this.peer(host), recordTypeOf(edge));
    this.inbound.set(id, inbound);
    channel.remote = { released: () => this.release(inbound) };
  }

  /**
   * Connects congestion: while `outbound` waits for credit, `sources` (on this thread) are not polled and
   * `feeders` (channels from other threads whose records reach it) owe their credits.
   */
  wireCongestion(
    outbound: OutboundChannel,
    sources: readonly Subtask[],
    feeders: readonly InputChannel[],
  ): void {
    const inbound = feeders.map((c) => this.inboundOf(c));
    outbound.onCongestion = (congested) => {
      for (const source of sources) {
        if (congested) source.holdBack();
        else source.releaseHold();
      }
      for (const i of inbound) {
        if (congested) i.withheld++;
        else if (--i.withheld === 0) this.release(i);
      }
    };
  }

  /**
   * Holds back (`held`) or releases the channels from other threads in `feeders`: while held, each keeps the credits
   * of the batches it processed (an asynchronous operator downstream on this thread is at capacity), so their
   * producers stop at their credit window as this thread's own sources stop. Calls balance, as holds on a source do.
   */
  withhold(feeders: readonly InputChannel[], held: boolean): void {
    for (const channel of feeders) {
      const inbound = this.inboundOf(channel);
      if (held) inbound.withheld++;
      else if (--inbound.withheld === 0) this.release(inbound);
    }
  }

  /** Starts receiving from every peer. */
  start(): void {
    for (const peer of this.peers.values()) {
      peer.port.on('message', (message: unknown[]) => this.receive(peer, message));
    }
  }

  /**
   * Stops receiving and closes the ports (the attempt ended). The typed batches' buffers this thread holds (each
   * channel's open batch and spares, and those a consumer kept to give back) are kept for the thread's next job
   * (see kept-batch-buffers.ts).
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const peer of this.peers.values()) peer.port.close();
    for (const channel of this.outbound.values()) channel.release();
    for (const inbound of this.inbound.values()) {
      for (const buffer of inbound.buffers) keepBatchBuffer(new Float64Array(buffer));
      inbound.buffers.length = 0;
    }
  }

  /** Outbound channels that wait for credit, described (for stall messages). */
  describeCongestion(): string[] {
    return [...this.outbound.values()]
      .filter((c) => c.congested)
      .map((c) => `channel ${c.describe()} waits for credit (${c.waitingBatches} batch(es) held)`);
  }

  markDirty(channel: OutboundChannel): void {
    // The first channel written to in a turn schedules the flush of all of them.
    if (this.dirty.push(channel) === 1) queueMicrotask(this.flushAll);
  }

  send(channel: OutboundChannel, batch: OutboundBatch): void {
    if (this.closed) return;
    const peer = this.peers.get(channel.host)!;
    figures.batchesSent++;
    if (!Array.isArray(batch)) {
      // A typed batch: its numbers' buffer is transferred; strings and barriers (rare, small) are cloned.
      peer.port.postMessage(
        [channel.id, batch.numbers, batch.strings, batch.barriers],
        [batch.numbers.buffer],
      );
      return;
    }
    const events = batch;
    let bytes: Uint8Array;
    try {
      bytes = peer.packr.pack(events);
    } catch (error) {
      throw serializationError(channel, events, error);
    }
    // The packer reuses its buffer: copy into one this message owns and transfer it.
    const owned = new Uint8Array(bytes);
    peer.port.postMessage([channel.id, owned], [owned.buffer]);
  }

  mismatch(channel: OutboundChannel, value: unknown): Error {
    const type = recordTypeOf(channel.edge)!;
    const { field, problem } = describeMismatch(type, value);
    return new RecordSerializationError(
      `A record emitted by '${channel.edge.source.name}' (subtask ${channel.producerIndex + 1}/${channel.edge.source.parallelism}) cannot cross threads on edge ${channel.describe()}: ${field === undefined ? 'the record' : `field '${field}'`} ${problem}`,
    );
  }

  private peer(host: number): Peer {
    const peer = this.peers.get(host);
    if (peer === undefined) throw new WeirError(`No port to thread ${host}`);
    return peer;
  }

  private inboundOf(channel: InputChannel): InboundChannel {
    for (const inbound of this.inbound.values()) if (inbound.channel === channel) return inbound;
    throw new WeirError(`Channel ${channel.describe()} is not fed from another thread`);
  }

  private receive(peer: Peer, message: unknown[]): void {
    if (this.closed) return;
    try {
      const id = message[0] as number;
      const payload = message[1];
      if (typeof payload === 'number') {
        // Credit grants: (channel, credits, buffers) triples, then the buffers given back, in order.
        const buffers = message[message.length - 1] as ArrayBuffer[];
        let b = 0;
        for (let i = 0; i < message.length - 1; i += 3) {
          const channel = this.outboundById(message[i] as number);
          for (const end = b + (message[i + 2] as number); b < end; b++) channel.recycle(buffers[b]!);
          channel.grant(message[i + 1] as number);
        }
        return;
      }
      const inbound = this.inbound.get(id);
      if (inbound === undefined) throw new WeirError(`A batch arrived for unknown channel ${id}`);
      figures.batchesReceived++;
      // The batch's records and watermarks are handled here, outside every other root: a root of the busy-time
      // tracker of its own, as a source batch is, so the receiving thread counts that work as busy, not idle.
      const timing = this.timing;
      const started = timing.beginDelivery();
      let watermark: number;
      try {
        if (inbound.recordType !== undefined) {
          const numbers = payload as Float64Array<ArrayBuffer>;
          watermark = deliverTypedBatch(
            inbound.recordType,
            numbers,
            message[2] as string[] | undefined,
            message[3] as CheckpointBarrier[] | undefined,
            inbound.channel,
          );
          // Every record was built from it: its buffer goes back with the credit, for a later batch to fill.
          inbound.buffers.push(numbers.buffer);
        } else {
          watermark = deliver(inbound.channel, peer.unpackr.unpack(payload as Uint8Array) as unknown[]);
        }
      } finally {
        if (timing.enabled) timing.endDelivery(inbound.channel.consumer.time, started);
      }
      // How far this channel's watermark runs ahead of what its consumer reached (0 if this one holds it back); not
      // before the consumer has a watermark, nor for the final one, which nothing lags in event time.
      if (watermark > MIN_WATERMARK && watermark < MAX_WATERMARK) {
        const reached = inbound.channel.consumer.currentWatermark;
        if (reached > MIN_WATERMARK) {
          figures.watermarkLeadMs += watermark - reached;
          figures.watermarkSamples++;
        }
      }
      if (inbound.channel.blocked || inbound.withheld > 0) inbound.owed++;
      else this.grant(inbound, 1);
      this.sendGrants(peer);
    } catch (error) {
      this.fail(error);
    }
  }

  private outboundById(id: number): OutboundChannel {
    const channel = this.outbound.get(id);
    if (channel !== undefined) return channel;
    throw new WeirError(`A credit arrived for unknown channel ${id}`);
  }

  /** The channel was released or what it feeds drained: return the credits it owes. */
  private release(inbound: InboundChannel): void {
    if (inbound.owed === 0 || inbound.channel.blocked || inbound.withheld > 0 || this.closed) return;
    this.grant(inbound, inbound.owed);
    inbound.owed = 0;
    this.sendGrants(inbound.peer);
  }

  /** Adds `credits` for `inbound` to its peer's next grant message, with the buffers it holds. */
  private grant(inbound: InboundChannel, credits: number): void {
    const peer = inbound.peer;
    const buffers = inbound.buffers;
    peer.grants.push(inbound.id, credits, buffers.length);
    for (let i = 0; i < buffers.length; i++) peer.returned.push(buffers[i]!);
    buffers.length = 0;
  }

  private sendGrants(peer: Peer): void {
    if (peer.grants.length === 0) return;
    const returned = peer.returned;
    peer.grants.push(returned);
    peer.port.postMessage(peer.grants, returned);
    peer.grants = [];
    peer.returned = [];
  }
}

/** Replays one batch into the consumer's channel, in order; returns its last watermark (MIN_WATERMARK if none). */
function deliver(channel: InputChannel, events: unknown[]): number {
  let watermark = MIN_WATERMARK;
  // Stryker disable next-line EqualityOperator: one step past the end reads undefined, which no case matches
  for (let i = 0; i < events.length; i += 3) {
    switch (events[i] as number) {
      case RECORD:
        channel.process(events[i + 1], events[i + 2] as number);
        break;
      case WATERMARK:
        watermark = events[i + 1] as number;
        channel.watermark(watermark);
        break;
      case STATUS:
        channel.status(events[i + 1] as boolean);
        break;
      case END:
        channel.endOfInput();
        break;
      case BARRIER:
        channel.barrier(events[i + 1] as CheckpointBarrier);
        break;
    }
  }
  return watermark;
}

/** The error for a batch that could not be encoded: finds the first record and field that cannot cross. */
function serializationError(channel: OutboundChannel, events: unknown[], cause: unknown): WeirError {
  // Control events hold numbers, booleans and barriers, which always encode: what is found is in a record.
  // Stryker disable next-line EqualityOperator: one step past the end finds undefined, which encodes
  for (let i = 0; i < events.length; i += 3) {
    const problem = findUnencodable(events[i + 1], 'record', new Set());
    if (problem !== undefined) {
      return new RecordSerializationError(
        `A record emitted by '${channel.edge.source.name}' (subtask ${channel.producerIndex + 1}/${channel.edge.source.parallelism}) cannot cross threads on edge ${channel.describe()}: ${problem}`,
        { cause },
      );
    }
  }
  return new RecordSerializationError(
    `A batch on edge ${channel.describe()} could not be encoded to cross threads: ${(cause as Error)?.message ?? String(cause)}`,
    { cause },
  );
}

/** Describes the first value under `value` that cannot be encoded (a function, a symbol, a cycle), or undefined. */
export function findUnencodable(value: unknown, path: string, seen: Set<object>): string | undefined {
  const type = typeof value;
  if (type === 'function') return `${path} is a function`;
  if (type === 'symbol') return `${path} is a symbol`;
  if (value === null || type !== 'object') return undefined;
  const object = value as object;
  if (seen.has(object)) return `${path} refers back to an enclosing object (a cycle)`;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: only saves walking a typed array's indices; dates and regular expressions have no enumerable own keys
  if (ArrayBuffer.isView(object) || object instanceof Date || object instanceof RegExp) return undefined;
  seen.add(object);
  try {
    if (object instanceof Map) {
      for (const [k, v] of object) {
        const found =
          findUnencodable(k, `${path} key`, seen) ?? findUnencodable(v, `${path}.get(${String(k)})`, seen);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    if (object instanceof Set) {
      for (const v of object) {
        const found = findUnencodable(v, `${path} element`, seen);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    if (Array.isArray(object)) {
      // Stryker disable next-line EqualityOperator: one step past the end finds undefined, which encodes
      for (let i = 0; i < object.length; i++) {
        const found = findUnencodable(object[i], `${path}[${i}]`, seen);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    for (const key of Object.keys(object)) {
      const found = findUnencodable((object as Record<string, unknown>)[key], `${path}.${key}`, seen);
      if (found !== undefined) return found;
    }
    return undefined;
  } finally {
    seen.delete(object);
  }
}
