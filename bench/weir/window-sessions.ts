// Benchmark: keyed event-time session windows with count + sum: merging, the per-key merging window set and
// state merges. Run: node --import tsx bench/weir/window-sessions.ts
import { EventTimeSessionWindows } from '../../src/index.ts';
import { runWindowBench } from './window-bench.ts';

const events = Number(process.env.EVENTS ?? 1_000_000);
// ~20 ms between a key's events on average (10,000 keys, 0.05 ms per event → 500 ms): gap 1 s keeps sessions open.
runWindowBench('sessions gap 1 s, count+sum, 10,000 keys', EventTimeSessionWindows.withGap(1000), { events });
runWindowBench('sessions gap 100 ms, count+sum, 10,000 keys', EventTimeSessionWindows.withGap(100), {
  events,
});
