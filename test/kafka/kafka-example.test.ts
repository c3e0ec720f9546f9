// The Kafka example, run as a process against the suite's broker: it finishes, never exits with an unsettled promise.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { RUN_TIMEOUT_MS, settle } from '../support/settle.ts';
import { bootstrapServers } from './kafka-test-cluster.ts';

describe('examples/kafka-orders', { timeout: 300_000 }, () => {
  it('main.ts finishes against a real broker', { timeout: RUN_TIMEOUT_MS + 10_000 }, async () => {
    const main = fileURLToPath(new URL('../../examples/kafka-orders/main.ts', import.meta.url));
    assert.equal(await settle(main, [], { WEIR_KAFKA_BOOTSTRAP: bootstrapServers() }), 'finished');
  });
});
