// A cluster task's transaction against the real broker: what the task sends while a commit is in flight, and a
// commit the broker never answers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientErrorIn, TIMED_OUT } from '../../src/connectors/kafka/kafka-client.ts';
import type { StoredRecord } from '../../src/connectors/kafka/stored-record.ts';
import { TaskTransaction } from '../../src/execution/cluster/task-transaction.ts';
import {
  bootstrapServers,
  createTopic,
  readAll,
  uniqueTopic,
  whileBrokerPaused,
} from './kafka-test-cluster.ts';

const record = (topic: string, value: string): StoredRecord => ({
  topic,
  partition: 0,
  key: null,
  value,
  timestamp: -1,
  headers: null,
});

describe('TaskTransaction', () => {
  it('holds what the task sends while a commit waits for the broker, and writes it into the next transaction', async () => {
    const topic = uniqueTopic('task-tx');
    await createTopic(topic, 1);
    const transaction = await TaskTransaction.open(uniqueTopic('task-tx-id'), bootstrapServers(), {}, 60_000);
    try {
      transaction.send(record(topic, 'a'));
      const committing = transaction.commit([]);
      // The commit has handed its transaction to the broker: the task runs on meanwhile (a periodic watermark, a
      // processing-time timer). librdkafka refuses a message outside an open transaction ("Erroneous state").
      await new Promise((resolve) => setImmediate(resolve));
      transaction.send(record(topic, 'b'));
      await committing;
      assert.equal(transaction.commits, 1);
      assert.equal(transaction.sentSinceCommit, 1, "'b' counts towards the next transaction");
      await transaction.commit([]);
      assert.deepEqual(
        (await readAll(topic)).map((r) => r.value),
        ['a', 'b'],
      );
    } finally {
      await transaction.close();
    }
  });

  it("gives up a commit the broker does not answer after one try, with the client's timeout, and closes after it", async () => {
    const topic = uniqueTopic('task-tx');
    await createTopic(topic, 1);
    const transaction = await TaskTransaction.open(
      uniqueTopic('task-tx-id'),
      bootstrapServers(),
      {},
      60_000,
      1_000,
    );
    try {
      transaction.send(record(topic, 'a'));
      const error = await whileBrokerPaused(async () => {
        const failed = await transaction.commit([]).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.equal(transaction.busy, false, 'the commit returned while the broker was still paused');
        return failed;
      });
      // A timeout, not retried on this client: the task starts again on a fresh one.
      assert.equal(clientErrorIn(error)?.code, TIMED_OUT, String(error));
      assert.equal(transaction.commits, 0);
    } finally {
      await transaction.close();
    }
  });
});
