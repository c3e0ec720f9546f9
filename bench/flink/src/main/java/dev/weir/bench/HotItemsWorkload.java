// Workload 4 (Nexmark q5-like hot items): bids per auction in 10 s windows sliding by 2 s (incremental
// count), then per window the auction(s) with the maximum count -> (window start, auction, count).
package dev.weir.bench;

import java.time.Duration;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

public final class HotItemsWorkload implements Workload {
  @Override
  public String id() {
    return "hot-items";
  }

  @Override
  public int stateKeys(Params p) {
    return p.auctions;
  }

  @Override
  public void build(StreamExecutionEnvironment env, Params p) {
    Workload.collect(
        Workload.alignedBids(env, p)
            .keyBy(b -> b.auction)
            .window(SlidingEventTimeWindows.of(Duration.ofMillis(p.slidingSizeMs), Duration.ofMillis(p.slidingSlideMs)))
            .aggregate(new Count(), new WithWindow())
            .keyBy(r -> r.f0)
            .process(new MaxPerWindow()),
        r -> Hashing.hotItem(r.f0, r.f1, r.f2));
  }

  static final class Count implements AggregateFunction<Bid, Integer, Integer> {
    @Override
    public Integer createAccumulator() {
      return 0;
    }

    @Override
    public Integer add(Bid b, Integer acc) {
      return acc + 1;
    }

    @Override
    public Integer getResult(Integer acc) {
      return acc;
    }

    @Override
    public Integer merge(Integer a, Integer b) {
      return a + b;
    }
  }

  /** (window start, auction, count); the record's timestamp is the window's end - 1. */
  static final class WithWindow extends ProcessWindowFunction<Integer, Tuple3<Long, Integer, Integer>, Integer, TimeWindow> {
    @Override
    public void process(Integer auction, Context ctx, Iterable<Integer> counts, Collector<Tuple3<Long, Integer, Integer>> out) {
      out.collect(Tuple3.of(ctx.window().getStart(), auction, counts.iterator().next()));
    }
  }

  /**
   * Keyed by window start. Every count of a window arrives before the watermark that passes the window's
   * end - 1 (the window operator emits, then forwards the watermark), so a timer there sees them all.
   */
  static final class MaxPerWindow extends KeyedProcessFunction<Long, Tuple3<Long, Integer, Integer>, Tuple3<Long, Integer, Integer>> {
    private transient ValueState<Integer> max;
    private transient ListState<Integer> auctions;

    @Override
    public void open(OpenContext ctx) {
      max = getRuntimeContext().getState(new ValueStateDescriptor<>("max", Types.INT));
      auctions = getRuntimeContext().getListState(new ListStateDescriptor<>("auctions", Types.INT));
    }

    @Override
    public void processElement(Tuple3<Long, Integer, Integer> r, Context ctx, Collector<Tuple3<Long, Integer, Integer>> out)
        throws Exception {
      Integer current = max.value();
      if (current == null) {
        ctx.timerService().registerEventTimeTimer(ctx.timestamp());
      }
      if (current == null || r.f2 > current) {
        max.update(r.f2);
        auctions.clear();
        auctions.add(r.f1);
      } else if (r.f2.equals(current)) {
        auctions.add(r.f1);
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Tuple3<Long, Integer, Integer>> out) throws Exception {
      int count = max.value();
      for (Integer auction : auctions.get()) out.collect(Tuple3.of(ctx.getCurrentKey(), auction, count));
      max.clear();
      auctions.clear();
    }
  }
}
