// KafkaSink against a real broker: each delivery guarantee, transactions per checkpoint, recovery and fencing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { GeneratorSource } from '../../src/connectors/generator-source.ts';
import { DeliveryGuarantee, KafkaSink } from '../../src/connectors/kafka/index.ts';
import type { SinkWriter, SinkWriterContext } from '../../src/core/sink.ts';
import type { KafkaTransactionalWriterState } from '../../src/connectors/kafka/kafka-transactional-writer.ts';
import type { StoredRecord } from '../../src/connectors/kafka/stored-record.ts';
import {
  StoredRecordReader,
  type StoredRecordBatch,
} from '../../src/connectors/kafka/stored-record-batch.ts';
import { bootstrapServers, createTopic, readAll, readStable, uniqueTopic } from './kafka-test-cluster.ts';

const dir = mkdtempSync(join(tmpdir(), 'weir-kafka-sink-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function sink(
  topic: string,
  guarantee: DeliveryGuarantee,
  prefix?: string,
  properties: Record<string, number> = {},
): KafkaSink<number> {
  const builder = KafkaSink.builder<number>()
    .setProperties(properties)
    .setBootstrapServers(bootstrapServers())
    .setTopic(topic)
    .setRecordSerializer((n, timestamp) => ({
      key: `k${n % 7}`,
      value: String(n),
      timestamp: timestamp ?? 1_000_000 + n,
    }))
    .setDeliveryGuarantee(guarantee);
  if (prefix !== undefined) builder.setTransactionalIdPrefix(prefix);
  return builder.build();
}

/** A batch's values, as strings. */
function valuesOf(batch: StoredRecordBatch): string[] {
  const reader = new StoredRecordReader(batch);
  const values: string[] = [];
  for (let r = reader.next(); r !== undefined; r = reader.next())
    values.push(Buffer.from(r.value!).toString());
  return values;
}

/** A record as checkpoints held them before records were kept as bytes. */
const objectRecord = (topic: string, n: number): StoredRecord => ({
  topic,
  partition: -1,
  key: `k${n % 7}`,
  value: String(n),
  timestamp: 1_000_000 + n,
  headers: null,
});

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const sortedValues = (records: { value: string }[]) =>
  records.map((r) => Number(r.value)).sort((a, b) => a - b);

/** Reads `topic` until its values are `expected` (a commit's markers land after it returns), failing after 30 s. */
async function untilValues(
  topic: string,
  expected: number[],
  read: (topic: string) => Promise<{ value: string }[]> = readStable,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const seen = sortedValues(await read(topic));
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
    if (Date.now() > deadline) assert.deepEqual(seen, expected, `${topic} after 30 s`);
  }
}

function context(
  subtaskIndex: number,
  parallelism: number,
  extra: Partial<SinkWriterContext> = {},
): SinkWriterContext {
  return { subtaskIndex, parallelism, sinkName: 'kafka', checkpointingEnabled: true, ...extra };
}

async function runJob(
  topic: string,
  guarantee: DeliveryGuarantee,
  count: number,
  prefix?: string,
): Promise<void> {
  const env = StreamExecutionEnvironment.create({ parallelism: 2 });
  env.enableCheckpointing(50, { storage: join(dir, uniqueTopic('checkpoints')) });
  env
    .fromSource(
      GeneratorSource.of(count, (i) => i, { batchSize: 100 }),
      undefined,
      'numbers',
    )
    .sinkTo(sink(topic, guarantee, prefix), 'kafka');
  await env.execute(`sink ${guarantee}`);
}

describe('KafkaSink (real broker)', { timeout: 300_000 }, () => {
  for (const guarantee of [
    DeliveryGuarantee.NONE,
    DeliveryGuarantee.AT_LEAST_ONCE,
    DeliveryGuarantee.EXACTLY_ONCE,
  ]) {
    it(`writes every record of a bounded job with ${guarantee}, keyed to partitions by the key`, async () => {
      const topic = uniqueTopic(`sink-${guarantee}`);
      await createTopic(topic, 3);
      await runJob(topic, guarantee, 5_000, uniqueTopic('txn'));
      const records = await readAll(topic);
      assert.deepEqual(sortedValues(records), range(5_000));
      // The default partitioner is a function of the key: one key, one partition.
      const partitionOf = new Map<string, number>();
      for (const r of records) {
        assert.equal(partitionOf.get(r.key!) ?? r.partition, r.partition, `key ${r.key} in two partitions`);
        partitionOf.set(r.key!, r.partition);
      }
      assert.equal(records.find((r) => r.value === '42')!.timestamp, 1_000_042);
    });
  }

  it('EXACTLY_ONCE: nothing is visible before its checkpoint completes; then all of it, in one transaction', async () => {
    const topic = uniqueTopic('eos-visibility');
    await createTopic(topic, 1);
    const writer = sink(topic, DeliveryGuarantee.EXACTLY_ONCE, uniqueTopic('txn')).createWriter(
      context(0, 1),
    ) as SinkWriter<number>;
    for (const n of [1, 2, 3]) writer.write(n, undefined);
    writer.snapshotState!(1);
    for (const n of [4, 5]) writer.write(n, undefined);
    assert.deepEqual(await readStable(topic), []);
    await writer.notifyCheckpointComplete!(1);
    await untilValues(topic, [1, 2, 3]);
    writer.snapshotState!(2);
    await writer.notifyCheckpointComplete!(2);
    await untilValues(topic, [1, 2, 3, 4, 5]);
    await writer.close!();
    assert.deepEqual(sortedValues(await readAll(topic)), [1, 2, 3, 4, 5]);
  });

  it('EXACTLY_ONCE: writes records into an open transaction as they arrive; the checkpoint makes them visible', async () => {
    const topic = uniqueTopic('eos-streaming');
    await createTopic(topic, 1);
    const writer = sink(topic, DeliveryGuarantee.EXACTLY_ONCE, uniqueTopic('txn')).createWriter(
      context(0, 1),
    ) as SinkWriter<number>;
    try {
      await writer.notifyCheckpointComplete!(0); // the producer is ready
      for (const n of [1, 2, 3]) writer.write(n, undefined);
      // On the broker before any checkpoint, in a transaction a read_committed consumer does not see yet.
      await untilValues(topic, [1, 2, 3], (t) => readAll(t, 'read_uncommitted'));
      assert.deepEqual(await readStable(topic), []);
      writer.snapshotState!(1);
      writer.write(4, undefined);
      await writer.notifyCheckpointComplete!(1);
      await untilValues(topic, [1, 2, 3]);
      writer.snapshotState!(2);
      await writer.notifyCheckpointComplete!(2);
    } finally {
      await writer.close!();
    }
    assert.deepEqual(sortedValues(await readAll(topic)), [1, 2, 3, 4]);
  });

  it('EXACTLY_ONCE: a transaction open for half its timeout is aborted and its interval written at commit', async () => {
    const topic = uniqueTopic('eos-expired');
    await createTopic(topic, 1);
    const writer = sink(topic, DeliveryGuarantee.EXACTLY_ONCE, uniqueTopic('txn'), {
      'transaction.timeout.ms': 2_000,
    }).createWriter(context(0, 1)) as SinkWriter<number>;
    try {
      await writer.notifyCheckpointComplete!(0);
      for (const n of [1, 2, 3]) writer.write(n, undefined);
      await untilValues(topic, [1, 2, 3], (t) => readAll(t, 'read_uncommitted'));
      // Reading to the high watermark waits for the transaction to be decided: the writer aborts it after 1 s,
      // long before the broker would (and then fail the commit below).
      assert.deepEqual(await readAll(topic), []);
      writer.snapshotState!(1);
      await writer.notifyCheckpointComplete!(1);
      writer.write(4, undefined);
      writer.snapshotState!(2);
      await writer.notifyCheckpointComplete!(2);
    } finally {
      await writer.close!();
    }
    assert.deepEqual(sortedValues(await readAll(topic)), [1, 2, 3, 4]);
  });

  it('EXACTLY_ONCE: after a crash, commits the restored intervals not yet committed, and only those', async () => {
    const topic = uniqueTopic('eos-recovery');
    await createTopic(topic, 2);
    const prefix = uniqueTopic('txn');
    const first = sink(topic, DeliveryGuarantee.EXACTLY_ONCE, prefix).createWriter(
      context(0, 1),
    ) as SinkWriter<number>;
    for (const n of [1, 2]) first.write(n, undefined);
    first.snapshotState!(1);
    await first.notifyCheckpointComplete!(1);
    for (const n of [3, 4]) first.write(n, undefined);
    // Checkpoint 2 is durable, but the process dies before its commit; 5 was written after the barrier.
    const state = structuredClone(first.snapshotState!(2));
    first.write(5, undefined);
    await first.close!();
    assert.deepEqual(sortedValues(await readAll(topic)), [1, 2]);

    const second = sink(topic, DeliveryGuarantee.EXACTLY_ONCE, prefix).createWriter(
      context(0, 1, { restoredState: state, restoredStates: [state], restoredCheckpointId: 2 }),
    ) as SinkWriter<number>;
    // Recovery runs before the first commit; an empty checkpoint 3 waits for it.
    second.snapshotState!(3);
    await second.notifyCheckpointComplete!(3);
    assert.deepEqual(sortedValues(await readAll(topic)), [1, 2, 3, 4]);
    await second.close!();

    // Restored again from checkpoint 2 (e.g. a second crash): interval 2 is committed now and not written again.
    const third = sink(topic, DeliveryGuarantee.EXACTLY_ONCE, prefix).createWriter(
      context(0, 1, { restoredState: state, restoredStates: [state], restoredCheckpointId: 2 }),
    ) as SinkWriter<number>;
    third.snapshotState!(3);
    await third.notifyCheckpointComplete!(3);
    assert.deepEqual(sortedValues(await readAll(topic)), [1, 2, 3, 4]);
    await third.close!();
  });

  it('EXACTLY_ONCE: a successor fences a zombie with the same transactional id; its interval is committed once', async () => {
    const topic = uniqueTopic('eos-fencing');
    await createTopic(topic, 1);
    const prefix = uniqueTopic('txn');
    const zombie = sink(topic, DeliveryGuarantee.EXACTLY_ONCE, prefix).createWriter(
      context(0, 1),
    ) as SinkWriter<number>;
    for (const n of [10, 11]) zombie.write(n, undefined);
    const state = structuredClone(zombie.snapshotState!(1));
    await zombie.notifyCheckpointComplete!(0); // waits for the zombie's producer to be ready
    // A restarted job takes over subtask 0 from checkpoint 1 while the old process still runs.
    const successor = sink(topic, DeliveryGuarantee.EXACTLY_ONCE, prefix).createWriter(
      context(0, 1, { restoredState: state, restoredStates: [state], restoredCheckpointId: 1 }),
    ) as SinkWriter<number>;
    successor.snapshotState!(2);
    await successor.notifyCheckpointComplete!(2);
    await assert.rejects(zombie.notifyCheckpointComplete!(1) as Promise<void>, /fenced|epoch|transactional/i);
    assert.deepEqual(sortedValues(await readAll(topic)), [10, 11]);
    await zombie.close!();
    await successor.close!();
  });

  it('EXACTLY_ONCE: a checkpoint holds each interval as one batch of bytes, not as record objects', async () => {
    const topic = uniqueTopic('eos-bytes');
    await createTopic(topic, 1);
    const writer = sink(topic, DeliveryGuarantee.EXACTLY_ONCE, uniqueTopic('txn')).createWriter(
      context(0, 1),
    ) as SinkWriter<number>;
    for (const n of [1, 2, 3]) writer.write(n, undefined);
    const state = writer.snapshotState!(1) as KafkaTransactionalWriterState;
    assert.equal(state.pending.length, 1);
    const interval = state.pending[0]!;
    assert.deepEqual([interval.checkpointId, interval.markerTopic], [1, topic]);
    assert.ok(interval.records.bytes instanceof Uint8Array);
    assert.deepEqual([interval.records.count, interval.records.topics], [3, [topic]]);
    assert.deepEqual(valuesOf(interval.records), ['1', '2', '3']);
    await writer.notifyCheckpointComplete!(1);
    assert.deepEqual(sortedValues(await readAll(topic)), [1, 2, 3]);
    await writer.close!();
  });

  it('EXACTLY_ONCE: restores intervals checkpointed as record objects, the form before batches', async () => {
    const topic = uniqueTopic('eos-old-form');
    await createTopic(topic, 1);
    const state = {
      pending: [{ checkpointId: 1, markerTopic: topic, records: [7, 8].map((n) => objectRecord(topic, n)) }],
    };
    const writer = sink(topic, DeliveryGuarantee.EXACTLY_ONCE, uniqueTopic('txn')).createWriter(
      context(0, 1, { restoredState: state, restoredStates: [state], restoredCheckpointId: 1 }),
    ) as SinkWriter<number>;
    // Until committed, the restored interval is in every checkpoint, now as bytes.
    const next = writer.snapshotState!(2) as KafkaTransactionalWriterState;
    assert.deepEqual(valuesOf(next.pending[0]!.records), ['7', '8']);
    await writer.notifyCheckpointComplete!(2);
    const records = await readAll(topic);
    assert.deepEqual(
      records.map((r) => [r.key, r.value, r.timestamp]),
      [
        ['k0', '7', 1_000_007],
        ['k1', '8', 1_000_008],
      ],
    );
    await writer.close!();
  });

  it('AT_LEAST_ONCE: the unacknowledged records are checkpointed as bytes and sent first after a restore, in either form', async () => {
    const topic = uniqueTopic('alo-restore');
    await createTopic(topic, 1);
    // Checkpointed before the producer connected: all three are still unacknowledged.
    const first = sink(topic, DeliveryGuarantee.AT_LEAST_ONCE).createWriter(
      context(0, 1),
    ) as SinkWriter<number>;
    for (const n of [1, 2, 3]) first.write(n, undefined);
    const state = structuredClone(first.snapshotState!(1)) as StoredRecordBatch[];
    assert.equal(state.length, 1);
    assert.ok(state[0]!.bytes instanceof Uint8Array);
    assert.deepEqual(valuesOf(state[0]!), ['1', '2', '3']);
    // They are delivered after the checkpoint; a restore from it sends them again (at least once).
    await first.endOfInput!();
    await first.close!();
    for (const restored of [state, [objectRecord(topic, 4), objectRecord(topic, 5)]]) {
      const writer = sink(topic, DeliveryGuarantee.AT_LEAST_ONCE).createWriter(
        context(0, 1, { restoredState: restored, restoredStates: [restored], restoredCheckpointId: 1 }),
      ) as SinkWriter<number>;
      writer.write(10, undefined);
      await writer.endOfInput!();
      await writer.close!();
    }
    const records = await readAll(topic);
    // One partition: in the order sent.
    assert.deepEqual(
      records.map((r) => r.value),
      ['1', '2', '3', '1', '2', '3', '10', '4', '5', '10'],
    );
    assert.deepEqual(
      records.slice(3, 6).map((r) => [r.key, r.timestamp]),
      [
        ['k1', 1_000_001],
        ['k2', 1_000_002],
        ['k3', 1_000_003],
      ],
    );
  });

  it('AT_LEAST_ONCE: once the broker has every record, a checkpoint holds none; one written during a confirmation waits in it', async () => {
    const topic = uniqueTopic('alo-confirmed');
    await createTopic(topic, 2);
    const writer = sink(topic, DeliveryGuarantee.AT_LEAST_ONCE).createWriter(
      context(0, 1),
    ) as SinkWriter<number>;
    for (const n of range(20_000)) writer.write(n, undefined);
    // End of input waits until the broker acknowledged all of them: the job's last checkpoint is empty.
    await writer.endOfInput!();
    assert.deepEqual(writer.snapshotState!(1), []);
    writer.write(20_000, undefined);
    // Sent, not yet acknowledged; the barrier starts a confirmation, during which a new record is held back.
    assert.deepEqual(valuesOf((writer.snapshotState!(2) as StoredRecordBatch[])[0]!), ['20000']);
    writer.write(20_001, undefined);
    assert.deepEqual(valuesOf((writer.snapshotState!(3) as StoredRecordBatch[])[0]!), ['20000', '20001']);
    await writer.endOfInput!();
    assert.deepEqual(writer.snapshotState!(4), []);
    await writer.close!();
    assert.deepEqual(sortedValues(await readAll(topic)), range(20_002));
  });

  it('AT_LEAST_ONCE: a record the broker does not take fails the job naming the sink, and stays in the checkpoint', async () => {
    // No such topic, and the broker creates none: librdkafka gives the record up after message.timeout.ms.
    const topic = uniqueTopic('alo-missing');
    const failures: unknown[] = [];
    const writer = sink(topic, DeliveryGuarantee.AT_LEAST_ONCE, undefined, {
      'message.timeout.ms': 1_000,
    }).createWriter(context(0, 1, { failJob: (error) => failures.push(error) })) as SinkWriter<number>;
    writer.write(7, undefined);
    await assert.rejects(async () => writer.endOfInput!(), /KafkaSink 'kafka': a record was not delivered/);
    assert.equal(failures.length, 1);
    assert.match(String(failures[0]), /KafkaSink 'kafka': a record was not delivered/);
    assert.deepEqual(valuesOf((writer.snapshotState!(1) as StoredRecordBatch[])[0]!), ['7']);
    await writer.close!();
  });

  it('AT_LEAST_ONCE: after scaling 2 -> 1, the writer sends the unacknowledged records of both old subtasks', async () => {
    const topic = uniqueTopic('alo-rescale');
    await createTopic(topic, 1);
    const states: unknown[] = [];
    for (const [s, values] of [
      [0, [1, 2]],
      [1, [3]],
    ] as const) {
      const w = sink(topic, DeliveryGuarantee.AT_LEAST_ONCE).createWriter(
        context(s, 2),
      ) as SinkWriter<number>;
      for (const n of values) w.write(n, undefined);
      states.push(structuredClone(w.snapshotState!(1)));
      // Delivered after the checkpoint: the restore sends them again (at least once).
      await w.endOfInput!();
      await w.close!();
    }
    // What SinkOperator gives a sink that redistributes: the states of old subtasks j % 1 === 0, concatenated.
    const restored = (states as unknown[][]).flat();
    const only = sink(topic, DeliveryGuarantee.AT_LEAST_ONCE).createWriter(
      context(0, 1, { restoredState: restored, restoredStates: states, restoredCheckpointId: 1 }),
    ) as SinkWriter<number>;
    await only.endOfInput!();
    await only.close!();
    assert.deepEqual(
      (await readAll(topic)).map((r) => r.value),
      ['1', '2', '3', '1', '2', '3'],
    );
  });

  it('EXACTLY_ONCE: after scaling 3 -> 1, subtask 0 commits the intervals of the subtasks that are gone', async () => {
    const topic = uniqueTopic('eos-rescale');
    await createTopic(topic, 1);
    const prefix = uniqueTopic('txn');
    const states: unknown[] = [];
    for (let s = 0; s < 3; s++) {
      const w = sink(topic, DeliveryGuarantee.EXACTLY_ONCE, prefix).createWriter(
        context(s, 3),
      ) as SinkWriter<number>;
      w.write(100 + s, undefined);
      states.push(structuredClone(w.snapshotState!(1)));
      // Delivered after the checkpoint: the restore sends them again (at least once).
      await w.endOfInput!();
      await w.close!();
    }
    assert.deepEqual(await readAll(topic), []);
    const only = sink(topic, DeliveryGuarantee.EXACTLY_ONCE, prefix).createWriter(
      context(0, 1, { restoredState: states[0], restoredStates: states, restoredCheckpointId: 1 }),
    ) as SinkWriter<number>;
    only.snapshotState!(2);
    await only.notifyCheckpointComplete!(2);
    assert.deepEqual(sortedValues(await readAll(topic)), [100, 101, 102]);
    await only.close!();
  });
});
