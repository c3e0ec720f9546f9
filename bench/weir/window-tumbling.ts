// Benchmark: keyed tumbling event-time windows with count + sum (the windowing hot path: cached window, one
// accumulator per pane, de-duplicated timers). Run: node --import tsx bench/weir/window-tumbling.ts
import { TumblingEventTimeWindows } from '../../src/index.ts';
import { runWindowBench } from './window-bench.ts';

const events = Number(process.env.EVENTS ?? 2_000_000);
runWindowBench('tumbling 1 s, count+sum, 10,000 keys', TumblingEventTimeWindows.of(1000), { events });
runWindowBench('tumbling 1 s, count+sum, 100 keys', TumblingEventTimeWindows.of(1000), { events, keys: 100 });
