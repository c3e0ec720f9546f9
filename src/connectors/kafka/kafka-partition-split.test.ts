// Partition ownership matches Flink's KafkaSourceEnumerator.getSplitOwner and covers every partition once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { javaStringHashCode, splitId, splitOwner } from './kafka-partition-split.ts';

describe('Kafka partition splits', () => {
  it("hashes topic names as Java's String.hashCode does (int overflow included)", () => {
    assert.equal(javaStringHashCode(''), 0);
    assert.equal(javaStringHashCode('topic'), 110546223);
    assert.equal(javaStringHashCode('orders-with-a-long-name'), 555553841);
    assert.equal(javaStringHashCode('Ünïcödé-topic'), 1199392823); // values computed by the JVM
  });

  it('assigns partitions round-robin from the subtask the topic hash picks, as Flink does', () => {
    // ((110546223 * 31) & 0x7fffffff) = 1279449265; 1279449265 % 3 = 1: partition 0 goes to subtask 1.
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((p) => splitOwner('topic', p, 3)),
      [1, 2, 0, 1, 2, 0],
    );
    assert.deepEqual(
      [0, 1, 2, 3].map((p) => splitOwner('topic', p, 4)),
      [1, 2, 3, 0],
    );
  });

  it('gives every partition exactly one owner at any parallelism', () => {
    for (const parallelism of [1, 2, 3, 7]) {
      const counts = new Array<number>(parallelism).fill(0);
      for (const topic of ['a', 'orders', 'clicks-eu'])
        for (let p = 0; p < 20; p++) {
          const owner = splitOwner(topic, p, parallelism);
          assert.ok(owner >= 0 && owner < parallelism);
          counts[owner]!++;
        }
      // Round-robin per topic: subtask loads differ by at most one partition per topic.
      assert.ok(Math.max(...counts) - Math.min(...counts) <= 3, `parallelism ${parallelism}: ${counts}`);
    }
  });

  it("names a split as Flink does: 'topic-partition'", () => {
    assert.equal(splitId('orders', 3), 'orders-3');
  });
});
