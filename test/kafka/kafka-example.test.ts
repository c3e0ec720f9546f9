// The Kafka example, run as a process against the suite's broker, on one thread and on two worker threads: it
// finishes (never exits with an unsettled promise) and commits exactly the totals and dead letters its input makes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { RUN_TIMEOUT_MS, settle } from '../support/settle.ts';
import { bootstrapServers, readAll } from './kafka-test-cluster.ts';

/** What the example's 10,000 orders make: order i is customer c(i % 50), 100 + (i * 37) % 900 cents, at i * 10 ms. */
function expectedTotals(): string[] {
  const totals = new Map<string, { customer: string; cents: number; orders: number }>();
  for (let i = 0; i < 10_000; i++) {
    if (i % 2_500 === 1_234) continue; // garbled: a dead letter
    const customer = `c${i % 50}`;
    const window = Math.floor((i * 10) / 10_000);
    const key = `${window}/${customer}`;
    const total = totals.get(key) ?? { customer, cents: 0, orders: 0 };
    total.cents += 100 + ((i * 37) % 900);
    total.orders += 1;
    totals.set(key, total);
  }
  return [...totals.values()].map((t) => JSON.stringify(t)).sort();
}

describe('examples/kafka-orders', { timeout: 300_000 }, () => {
  for (const workers of [1, 2]) {
    it(
      `main.ts finishes against a real broker with exactly its totals (workers: ${workers})`,
      {
        timeout: RUN_TIMEOUT_MS + 70_000,
      },
      async () => {
        const main = fileURLToPath(new URL('../../examples/kafka-orders/main.ts', import.meta.url));
        const run = randomBytes(3).toString('hex');
        const outcome = await settle(main, [String(workers)], {
          WEIR_KAFKA_BOOTSTRAP: bootstrapServers(),
          WEIR_KAFKA_ORDERS_RUN: run,
        });
        assert.equal(outcome, 'finished');
        const totals = (await readAll(`totals-${run}`)).map((r) => r.value).sort();
        assert.deepEqual(totals, expectedTotals());
        const deadLetters = await readAll(`orders-dlq-${run}`);
        assert.deepEqual(
          deadLetters.map((r) => r.value).sort(),
          [1_234, 3_734, 6_234, 8_734].map((i) => `{"customer": "c${i % 50}", "cents": `).sort(),
        );
      },
    );
  }
});
