// Benchmark: keyed sliding event-time windows (size 4 × slide) with incremental count + sum: four panes per
// element. Run: node --import tsx bench/weir/window-sliding.ts
import { SlidingEventTimeWindows } from '../../src/index.ts';
import { runWindowBench } from './window-bench.ts';

const events = Number(process.env.EVENTS ?? 1_000_000);
runWindowBench('sliding 4 s / 1 s, count+sum, 10,000 keys', SlidingEventTimeWindows.of(4000, 1000), {
  events,
});
