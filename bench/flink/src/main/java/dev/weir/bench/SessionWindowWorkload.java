// Workload 5 (Nexmark q11-like): bids per bidder in event-time session windows with a 10 s gap ->
// (bidder, session start, session end, count).
package dev.weir.bench;

import java.time.Duration;
import org.apache.flink.api.java.tuple.Tuple4;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

public final class SessionWindowWorkload implements Workload {
  @Override
  public String id() {
    return "session-window";
  }

  @Override
  public int stateKeys(Params p) {
    return p.bidders;
  }

  @Override
  public void build(StreamExecutionEnvironment env, Params p) {
    Workload.collect(
        Workload.alignedBids(env, p)
            .keyBy(b -> b.bidder)
            .window(EventTimeSessionWindows.withGap(Duration.ofMillis(p.sessionGapMs)))
            .aggregate(new HotItemsWorkload.Count(), new WithSession()),
        r -> Hashing.session(r.f0, r.f1, r.f2, r.f3));
  }

  static final class WithSession extends ProcessWindowFunction<Integer, Tuple4<Integer, Long, Long, Integer>, Integer, TimeWindow> {
    @Override
    public void process(Integer bidder, Context ctx, Iterable<Integer> counts, Collector<Tuple4<Integer, Long, Long, Integer>> out) {
      out.collect(Tuple4.of(bidder, ctx.window().getStart(), ctx.window().getEnd(), counts.iterator().next()));
    }
  }
}
