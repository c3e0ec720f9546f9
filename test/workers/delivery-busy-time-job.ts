// A job on two worker threads whose keyed subtask 2 receives every record from the other worker: the source has
// parallelism 1 (on worker 1) and every record's key belongs to subtask 2 (on worker 2), whose operator is slow.
// Every worker imports this module again.
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { DEFAULT_MAX_PARALLELISM } from '../../src/state/key-group-range.ts';
import { keyGroupFor, normalizeKey } from '../../src/state/key-hash.ts';

/** A key whose key group belongs to subtask 2 of 2, so every record goes to the subtask on worker 2. */
export const KEY = (() => {
  for (let k = 0; ; k++) {
    const group = keyGroupFor(normalizeKey(k), DEFAULT_MAX_PARALLELISM);
    if (Math.floor((group * 2) / DEFAULT_MAX_PARALLELISM) === 1) return k;
  }
})();

/** What the keyed operator spends on each record (ms of wall time, spinning): it cannot keep up with the source. */
const SPIN_MS = 0.05;

const env = StreamExecutionEnvironment.create({
  parallelism: 2,
  workers: 2,
  jobModule: import.meta.url,
  metrics: { intervalMs: 100 },
});
env
  .fromAsyncIterable(async function* () {
    for (let i = 0; ; i++) yield i;
  }, 'numbers')
  .setParallelism(1)
  .keyBy(() => KEY)
  .map((n) => {
    const until = performance.now() + SPIN_MS;
    while (performance.now() < until);
    return n;
  })
  .name('slow')
  .sinkTo({ createWriter: () => ({ write() {} }) }, 'discard');

/** On the main thread the running job; in a worker this import never settles. */
export const client = await env.executeAsync('delivery-busy-time');
