// A bounded source's subtasks on two worker threads take turns as on one thread: one whose records come slowly holds
// the other within a few batches of it, instead of letting it run to its end alone (see SourceTurns).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SOURCE_TURN_SLACK } from '../../src/runtime/source-turns.ts';

describe('source turns in worker mode', () => {
  it('keeps the fast subtask of a bounded source within its slack of batches of the slow one on the other thread', async () => {
    const { result, COUNT: count, BATCH: batch } = await import('./source-turns-job.ts');
    assert.deepEqual(
      result.map((r) => r.i).sort((a, b) => a - b),
      Array.from({ length: count }, (_, i) => i),
    );
    // The records of each subtask in the order made; for each record of the fast subtask 0, how many records
    // subtask 1 had made by then. Subtask 0 polls a batch only while it is no more than the slack ahead, counting
    // whole batches (one more when a poll of subtask 1 was under way), and Date.now() counts whole milliseconds,
    // in which the slow subtask makes up to 20 records: one batch more of margin.
    const fast = result.filter((r) => r.i % 2 === 0).sort((a, b) => a.i - b.i);
    const slow = result.filter((r) => r.i % 2 === 1).sort((a, b) => a.i - b.i);
    let made = 0;
    let lead = 0;
    for (let n = 0; n < fast.length; n++) {
      while (made < slow.length && slow[made]!.at < fast[n]!.at) made++;
      lead = Math.max(lead, n + 1 - made);
    }
    assert.ok(
      lead <= (SOURCE_TURN_SLACK + 3) * batch,
      `subtask 0 ran ${lead} records ahead of subtask 1 (${(lead / batch).toFixed(1)} batches of ${batch})`,
    );
  });
});
