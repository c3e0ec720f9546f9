// TaskChangelog: a task's keyed state and timers, written to its changelog partitions at each commit and read back on assignment.
import { createHash } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import { ConfigurationError, WeirError } from '../../core/errors.ts';
import type { SubTopology, TaskTopology } from '../../graph/sub-topologies.ts';
import {
  call,
  kafkaClient,
  type ClientConsumer,
  type ClientMessage,
  type ClientMetadata,
  type KafkaProperties,
} from '../../connectors/kafka/kafka-client.ts';
import type { StoredRecord } from '../../connectors/kafka/stored-record.ts';
import type { JobRuntime } from '../../runtime/job-runtime.ts';
import type { JobSnapshot, OperatorSnapshot } from '../../runtime/job-snapshot.ts';
import type { KeyGroupSnapshot } from '../../state/keyed-state-backend.ts';
import { decodeKeyGroup } from '../../state/key-group-format.ts';

const TIMEOUT_MS = 60_000;
/** A topic name holds only these (as repartition topics). */
const TOPIC_CHARACTER = /[^A-Za-z0-9._-]/g;
/** The first byte of every changelog message key: the version of this format. */
const FORMAT = 1;
/** The second byte: what the value holds. */
const KEYED_STATE = 0;
const TIMERS = 1;
/** The task's input state (a repartition topic's channel watermarks), in the first changelog topic, key group 0. */
const INPUT = 2;

/**
 * The configuration a changelog topic is created with. A task restores by reading its whole partition, and
 * compaction never touches a partition's active segment: small segments, rolled at least every minute, and a low
 * dirty ratio keep what a restore reads close to the state itself (docs/scale-out.md has the measurements). Kafka
 * Streams creates its changelogs compacted with CreateTime timestamps and the broker's segments, as it restores
 * from local stores' checkpointed offsets; Weir's local stores (with `LmdbStateBackend`) do that too, but a process
 * without one, or a task new to it, still reads the whole partition.
 */
export const CHANGELOG_TOPIC_CONFIG: Readonly<Record<string, string>> = {
  'cleanup.policy': 'compact',
  'segment.bytes': String(1024 * 1024),
  'segment.ms': String(60_000),
  'min.cleanable.dirty.ratio': '0.1',
  'message.timestamp.type': 'CreateTime',
};

/**
 * The configuration of a job's changelog topics: Weir's defaults with the job's own over them. A cleanup policy
 * without `compact` is refused: a restore reads the partition from its start, so deleted segments would lose state.
 */
export function changelogTopicConfig(
  overrides: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const config = { ...CHANGELOG_TOPIC_CONFIG, ...overrides };
  const policies = config['cleanup.policy']!.split(',').map((p) => p.trim());
  if (!policies.includes('compact') || policies.includes('delete'))
    throw new ConfigurationError(
      `Cluster mode: changelogTopicConfig sets cleanup.policy '${config['cleanup.policy']}'; changelog topics must ` +
        `be 'compact' (a restore reads the whole partition: deleted segments would lose state)`,
    );
  return config;
}

/** The changelog topic of one stateful operator: one partition per task of its sub-topology. */
export interface ChangelogTopicPlan {
  readonly name: string;
  /** The uid of the operator whose state it holds. */
  readonly uid: string;
  readonly partitions: number;
  readonly maxParallelism: number;
}

/**
 * The changelog topics of a job: one per keyed operator, `<job id>-<uid>-changelog`, with as many partitions as
 * its sub-topology has tasks (co-partitioned with the task's input: partition p is task p's).
 */
export function changelogTopics(topology: TaskTopology, jobId: string): ChangelogTopicPlan[] {
  return topology.subTopologies.flatMap((sub) => changelogTopicsOf(sub, jobId));
}

/** The changelog topics of the keyed operators of one sub-topology. */
export function changelogTopicsOf(sub: SubTopology, jobId: string): ChangelogTopicPlan[] {
  return sub.nodes
    .filter((n) => n.transformation.isKeyed)
    .map((n) => ({
      name: `${jobId}-${n.uid}-changelog`.replace(TOPIC_CHARACTER, '_'),
      uid: n.uid,
      partitions: sub.tasks.length,
      maxParallelism: n.maxParallelism,
    }));
}

/** A changelog message that cannot be read back: names the topic, partition and offset. */
export class ChangelogDecodeError extends WeirError {
  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly offset: number,
    reason: string,
    cause?: unknown,
  ) {
    super(
      `Changelog record ${topic}-${partition}@${offset} could not be decoded: ${reason}`,
      cause === undefined ? undefined : { cause },
    );
  }
}

/** The key of one key group's keyed state or timers: format, kind, key group (16 bits, big-endian). */
function messageKey(kind: number, keyGroup: number): Buffer {
  const key = Buffer.alloc(4);
  key[0] = FORMAT;
  key[1] = kind;
  key.writeUInt16BE(keyGroup, 2);
  return key;
}

/** What a task has written (and read back) of its changelog. */
export interface ChangelogFigures {
  /** Commits that wrote at least one changelog message. */
  commitsWithChanges: number;
  messages: number;
  bytes: number;
  /** Milliseconds spent snapshotting and comparing state at commits. */
  snapshotMs: number;
}

/**
 * Writes one task's state changes into its transaction, per changed key group: at each commit it snapshots every
 * keyed operator of the task (its keyed state and its timers, one key group at a time, the format of savepoints)
 * and writes the key groups whose bytes differ from what it wrote last, and a tombstone for each key group that
 * no longer holds anything. Unchanged key groups cost a snapshot and a digest, no message.
 *
 * Cost: the snapshot serializes the task's whole state at every commit that read input (O(state) CPU per commit
 * interval), and a changed key group is rewritten whole (O(key group) bytes for one changed key). Dirty tracking
 * in the backends and messages per entry are what lowers both (docs/scale-out.md).
 */
export class ChangelogWriter {
  /** Per topic: message key (hex) → digest of the value last written. */
  private readonly written = new Map<string, Map<string, string>>();
  readonly figures: ChangelogFigures = { commitsWithChanges: 0, messages: 0, bytes: 0, snapshotMs: 0 };
  /** Whether the last snapshot held processing-time timers (which change state with no input). */
  hadProcessingTimers = false;

  constructor(
    private readonly topics: readonly ChangelogTopicPlan[],
    private readonly partition: number,
  ) {
    for (const topic of topics) this.written.set(topic.name, new Map());
  }

  /** Remembers what the changelog held at restore, so only what changes after it is written again. */
  restored(snapshot: JobSnapshot | undefined, inputState: unknown): void {
    const first = this.topics[0];
    if (first !== undefined && inputState !== undefined)
      this.written
        .get(first.name)!
        .set(messageKey(INPUT, 0).toString('hex'), digest(new Uint8Array(serialize(inputState))));
    if (snapshot === undefined) return;
    for (const topic of this.topics) {
      const op = snapshot.operators[topic.uid];
      if (op === undefined) continue;
      const written = this.written.get(topic.name)!;
      for (const { keyGroup, bytes } of op.keyedState)
        written.set(messageKey(KEYED_STATE, keyGroup).toString('hex'), digest(bytes));
      for (const { keyGroup, bytes } of op.timers)
        written.set(messageKey(TIMERS, keyGroup).toString('hex'), digest(bytes));
    }
  }

  /**
   * Where the task keeps a copy of the timers and input state it writes (its local store), beside the keyed state
   * its backend keeps: called with the operator's uid, the message's key and value (null for a tombstone).
   */
  keep: ((uid: string, key: Buffer, value: Uint8Array | null) => void) | undefined = undefined;

  /**
   * Learns what the changelog holds from the task's state as restored (a local store holds more than the snapshot
   * read back): snapshots it as {@link write} does, sending nothing and counting nothing.
   */
  prime(runtime: JobRuntime, inputState: unknown): void {
    const figures = { ...this.figures };
    const keep = this.keep;
    this.keep = undefined;
    for (const written of this.written.values()) written.clear();
    this.write(runtime, inputState, () => {});
    this.keep = keep;
    Object.assign(this.figures, figures);
  }

  /**
   * Snapshots the task's keyed operators (between two reads: no record is in flight) and hands the changed key
   * groups to `send`, in the task's open transaction. Returns the number of messages sent.
   */
  write(runtime: JobRuntime, inputState: unknown, send: (record: StoredRecord) => void): number {
    const started = performance.now();
    let sent = 0;
    let processingTimers = false;
    const first = this.topics[0];
    const keep = this.keep;
    if (first !== undefined && inputState !== undefined) {
      const key = messageKey(INPUT, 0);
      const hex = key.toString('hex');
      const bytes = new Uint8Array(serialize(inputState));
      const hash = digest(bytes);
      const written = this.written.get(first.name)!;
      if (written.get(hex) !== hash) {
        written.set(hex, hash);
        send(record(first.name, this.partition, key, bytes));
        keep?.(first.uid, key, bytes);
        this.figures.bytes += key.byteLength + bytes.byteLength;
        sent++;
      }
    }
    for (const topic of this.topics) {
      const node = runtime.graph.nodes.find((n) => n.uid === topic.uid);
      if (node === undefined) continue;
      const subtask = runtime.subtasksOf(node)[0];
      if (subtask?.backend === undefined) continue;
      subtask.operator.prepareKeyedStateSnapshot();
      const written = this.written.get(topic.name)!;
      const seen = new Set<string>(topic === first ? [messageKey(INPUT, 0).toString('hex')] : []);
      const emit = (kind: number, groups: readonly KeyGroupSnapshot[]): void => {
        for (const { keyGroup, bytes } of groups) {
          const key = messageKey(kind, keyGroup);
          const hex = key.toString('hex');
          seen.add(hex);
          const hash = digest(bytes);
          if (written.get(hex) === hash) continue;
          written.set(hex, hash);
          send(record(topic.name, this.partition, key, bytes));
          // The backend keeps the keyed state itself; the timers are kept beside it.
          if (kind !== KEYED_STATE) keep?.(topic.uid, key, bytes);
          this.figures.bytes += key.byteLength + bytes.byteLength;
          sent++;
        }
      };
      emit(KEYED_STATE, subtask.backend.snapshot());
      if (subtask.timers !== undefined) {
        emit(TIMERS, subtask.timers.snapshot(node.maxParallelism));
        processingTimers ||= subtask.timers.numProcessingTimeTimers() > 0;
      }
      for (const hex of [...written.keys()]) {
        if (seen.has(hex)) continue;
        written.delete(hex);
        const key = Buffer.from(hex, 'hex');
        send(record(topic.name, this.partition, key, null));
        if (key[1] !== KEYED_STATE) keep?.(topic.uid, key, null);
        this.figures.bytes += key.byteLength;
        sent++;
      }
    }
    this.hadProcessingTimers = processingTimers;
    this.figures.messages += sent;
    if (sent > 0) this.figures.commitsWithChanges++;
    this.figures.snapshotMs += performance.now() - started;
    return sent;
  }
}

function digest(bytes: Uint8Array): string {
  return createHash('md5').update(bytes).digest('base64');
}

function record(topic: string, partition: number, key: Buffer, value: Uint8Array | null): StoredRecord {
  return { topic, partition, key, value, timestamp: -1, headers: null };
}

/** What reading a task's changelog back found. */
export interface ChangelogRestore {
  /**
   * The task's keyed state and timers by operator uid, as read (from each partition's start, or after the
   * checkpoint: then only what changed since), or undefined when nothing was read.
   */
  readonly snapshot: JobSnapshot | undefined;
  /** Per operator uid, what the read found of each key group's keyed state and timers (null: a tombstone). */
  readonly read: ReadonlyMap<string, PartitionContents>;
  /** The task's input state committed last (a repartition topic's channel watermarks), if the read found one. */
  readonly inputState: unknown;
  /** Per changelog topic, the partition's end when read: the offset a checkpoint of the restored state names. */
  readonly ends: Readonly<Record<string, number>>;
  /** Whether the read started at the checkpoint's offsets (else at each partition's start). */
  readonly fromCheckpoint: boolean;
  /** Why a checkpoint that was given could not be used (then the read started at each partition's start). */
  readonly checkpointRejected: string | undefined;
  readonly messages: number;
  readonly bytes: number;
  readonly entries: number;
  readonly ms: number;
}

/**
 * Reads the task's partition of each changelog topic with read_committed, from its start (or, with a checkpoint,
 * from the offset it names for the topic) to its end, keeping the last value of each key group (a tombstone
 * removes it), and returns them as the snapshot the task's runtime restores. A checkpoint whose offset of some
 * topic is missing, or lies before the partition's log start or past its end, is rejected, and every partition is
 * read from its start. Called after the task's transactional id was initialised, which aborted what a previous
 * owner left open: every transaction on the partition is then decided, so its end (the high watermark) is where
 * the committed state ends. A message that cannot be decoded fails with a {@link ChangelogDecodeError}.
 */
export async function restoreChangelog(
  topics: readonly ChangelogTopicPlan[],
  partition: number,
  bootstrapServers: string,
  properties: KafkaProperties,
  groupId: string,
  checkpoint?: Readonly<Record<string, number>>,
): Promise<ChangelogRestore> {
  const started = performance.now();
  if (topics.length === 0)
    return {
      snapshot: undefined,
      read: new Map(),
      inputState: undefined,
      ends: {},
      fromCheckpoint: false,
      checkpointRejected: undefined,
      messages: 0,
      bytes: 0,
      entries: 0,
      ms: 0,
    };
  const reader = await ChangelogReader.open(bootstrapServers, properties, groupId);
  try {
    const restored = await reader.read(topics, partition, checkpoint);
    return { ...restored, ms: performance.now() - started };
  } finally {
    await reader.close();
  }
}

/**
 * A read_committed consumer of changelog partitions, assigned by hand (it joins no group and commits nothing):
 * {@link restoreChangelog} opens one per restore; a standby replica keeps one open between its catch-ups.
 */
export class ChangelogReader {
  private constructor(private readonly consumer: ClientConsumer) {}

  /** Connects a reader; `groupId` only names it to the brokers (nothing is committed under it). */
  static async open(
    bootstrapServers: string,
    properties: KafkaProperties,
    groupId: string,
  ): Promise<ChangelogReader> {
    const { KafkaConsumer } = kafkaClient();
    const consumer = new KafkaConsumer(
      {
        ...properties,
        'bootstrap.servers': bootstrapServers,
        'group.id': groupId,
        'enable.auto.commit': false,
        'enable.auto.offset.store': false,
        'enable.partition.eof': false,
        'isolation.level': 'read_committed',
      },
      {},
    );
    await call<ClientMetadata>(`connecting the changelog reader of ${groupId}`, (cb) =>
      consumer.connect({ timeout: TIMEOUT_MS }, cb),
    );
    return new ChangelogReader(consumer);
  }

  /**
   * Reads the task's partition of each topic from its start (or from the checkpoint's offsets) to its end, as
   * {@link restoreChangelog} describes. The end is what the brokers give a read_committed client: the last stable
   * offset, before any transaction still open (a live owner's), so what is read is always committed state.
   */
  async read(
    topics: readonly ChangelogTopicPlan[],
    partition: number,
    checkpoint?: Readonly<Record<string, number>>,
  ): Promise<ChangelogRestore> {
    const started = performance.now();
    const consumer = this.consumer;
    let messages = 0;
    let bytes = 0;
    let inputState: unknown = undefined;
    const operators: Record<string, OperatorSnapshot> = {};
    const read = new Map<string, PartitionContents>();
    const ends: Record<string, number> = {};
    let checkpointRejected: string | undefined = undefined;
    const bounds = new Map<string, { lowOffset: number; highOffset: number }>();
    for (const topic of topics) {
      const where = `${topic.name}-${partition}`;
      const bound = await call<{ lowOffset: number; highOffset: number }>(
        `reading the end of changelog ${where}`,
        (cb) => consumer.queryWatermarkOffsets(topic.name, partition, TIMEOUT_MS, cb),
      );
      bounds.set(topic.name, bound);
      ends[topic.name] = bound.highOffset;
      if (checkpoint === undefined || checkpointRejected !== undefined) continue;
      const offset = checkpoint[topic.name];
      if (offset === undefined) checkpointRejected = `it names no offset of ${where}`;
      else if (offset < bound.lowOffset)
        checkpointRejected = `its offset ${offset} of ${where} is before the log start ${bound.lowOffset}`;
      else if (offset > bound.highOffset)
        checkpointRejected = `its offset ${offset} of ${where} is past the end ${bound.highOffset}`;
    }
    const fromCheckpoint = checkpoint !== undefined && checkpointRejected === undefined;
    for (const topic of topics) {
      const { lowOffset, highOffset } = bounds.get(topic.name)!;
      const from = fromCheckpoint ? checkpoint[topic.name]! : lowOffset;
      const latest = await readPartition(consumer, topic, partition, from, highOffset);
      read.set(topic.uid, latest);
      messages += latest.messages;
      bytes += latest.bytes;
      if (latest.input !== undefined) inputState = latest.input;
      const keyedState = sorted(latest.keyedState);
      const timers = sorted(latest.timers);
      if (keyedState.length === 0 && timers.length === 0) continue;
      operators[topic.uid] = { parallelism: 1, keyedState, timers, operatorState: [] };
    }
    const uids = Object.keys(operators);
    const entries = uids.reduce(
      (n, uid) => n + operators[uid]!.keyedState.length + operators[uid]!.timers.length,
      0,
    );
    return {
      snapshot: uids.length === 0 ? undefined : { version: 1, operators },
      read,
      inputState,
      ends,
      fromCheckpoint,
      checkpointRejected,
      messages,
      bytes,
      entries,
      ms: performance.now() - started,
    };
  }

  async close(): Promise<void> {
    await call('disconnecting the changelog reader', (cb) => this.consumer.disconnect(cb)).catch(() => {});
  }
}

/** The key groups that hold a value (tombstones left out), in order. */
export function sorted(groups: ReadonlyMap<number, Uint8Array | null>): KeyGroupSnapshot[] {
  const out: KeyGroupSnapshot[] = [];
  for (const [keyGroup, bytes] of groups) if (bytes !== null) out.push({ keyGroup, bytes });
  return out.sort((a, b) => a.keyGroup - b.keyGroup);
}

/** The last value of each key of one changelog partition, as read so far (null: its last message was a tombstone). */
export interface PartitionContents {
  readonly keyedState: Map<number, Uint8Array | null>;
  readonly timers: Map<number, Uint8Array | null>;
  input: unknown;
  messages: number;
  bytes: number;
}

/** Nothing read yet. */
export function emptyContents(): PartitionContents {
  return { keyedState: new Map(), timers: new Map(), input: undefined, messages: 0, bytes: 0 };
}

async function readPartition(
  consumer: ClientConsumer,
  topic: ChangelogTopicPlan,
  partition: number,
  from: number,
  highOffset: number,
): Promise<PartitionContents> {
  const contents = emptyContents();
  const where = `${topic.name}-${partition}`;
  if (highOffset <= from) return contents;
  consumer.setDefaultConsumeTimeout(100);
  consumer.setDefaultIsTimeoutOnlyForFirstMessage(true);
  consumer.assign([{ topic: topic.name, partition, offset: from }]);
  const deadline = Date.now() + TIMEOUT_MS;
  try {
    for (;;) {
      const batch = await call<ClientMessage[]>(`reading changelog ${where}`, (cb) =>
        consumer.consume(1_000, cb),
      );
      for (const m of batch) decode(m, topic, contents);
      // The position passes transaction markers too: at the end it is the high watermark.
      const position = consumer.position([{ topic: topic.name, partition }])[0]?.offset ?? -1;
      if (position >= highOffset) return contents;
      if (batch.length === 0 && Date.now() > deadline)
        throw new WeirError(
          `Changelog ${where}: the restore reached offset ${position} of ${highOffset} in ${TIMEOUT_MS} ms`,
        );
    }
  } finally {
    consumer.unassign();
  }
}

/** Checks and keeps one changelog message: the last value of each key group wins, a tombstone removes it. */
export function decode(m: ClientMessage, topic: ChangelogTopicPlan, into: PartitionContents): void {
  const fail = (reason: string, cause?: unknown): never => {
    throw new ChangelogDecodeError(m.topic, m.partition, m.offset, reason, cause);
  };
  const key = typeof m.key === 'string' ? Buffer.from(m.key) : m.key;
  if (key === undefined || key === null || key.byteLength !== 4)
    return fail(`its key is ${key?.byteLength ?? 'absent'}${key == null ? '' : ' bytes'}, not 4 bytes`);
  if (key[0] !== FORMAT) return fail(`its key is of format ${key[0]}; this version reads format ${FORMAT}`);
  const kind = key[1]!;
  if (kind !== KEYED_STATE && kind !== TIMERS && kind !== INPUT)
    return fail(`its key names the unknown kind ${kind}`);
  const keyGroup = key.readUInt16BE(2);
  if (kind === INPUT) {
    into.messages++;
    into.bytes += key.byteLength + (m.value?.byteLength ?? 0);
    let state: unknown = undefined;
    try {
      state = m.value === null ? undefined : deserialize(m.value);
    } catch (error) {
      fail(`the input state: ${(error as Error).message}`, error);
    }
    if (state !== undefined && !Array.isArray((state as { producers?: unknown }).producers))
      fail('the input state has no list of producers');
    into.input = state;
    return;
  }
  if (keyGroup >= topic.maxParallelism)
    return fail(`key group ${keyGroup} is not below the max parallelism ${topic.maxParallelism}`);
  into.messages++;
  into.bytes += key.byteLength + (m.value?.byteLength ?? 0);
  const groups = kind === KEYED_STATE ? into.keyedState : into.timers;
  if (m.value === null) {
    groups.set(keyGroup, null);
    return;
  }
  const bytes = new Uint8Array(m.value);
  try {
    if (kind === KEYED_STATE) decodeKeyGroup(keyGroup, bytes);
    else if (!Array.isArray(deserialize(bytes))) throw new Error('the timers are not a list');
  } catch (error) {
    fail(
      `the ${kind === KEYED_STATE ? 'keyed state' : 'timers'} of key group ${keyGroup}: ${(error as Error).message}`,
      error,
    );
  }
  groups.set(keyGroup, bytes);
}
