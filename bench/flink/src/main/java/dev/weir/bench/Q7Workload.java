// Workload q7 (Nexmark q7 "highest bid"): bids in 10 s tumbling windows over all bids (windowAll), an incremental
// aggregate keeping the highest price and the bids at it, and a ProcessAllWindowFunction adding the window end
// -> (window end, auction, bidder, price) per bid at the window's highest price.
package dev.weir.bench;

import java.time.Duration;
import java.util.ArrayList;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.java.tuple.Tuple4;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessAllWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

public final class Q7Workload implements Workload {
  @Override
  public String id() {
    return "q7";
  }

  @Override
  public int stateKeys(Params p) {
    return 1;
  }

  @Override
  public void build(StreamExecutionEnvironment env, Params p) {
    Workload.collect(
        Workload.bids(env, p)
            .windowAll(TumblingEventTimeWindows.of(Duration.ofMillis(p.nexmarkWindowMs)))
            .aggregate(new Highest(), new WithWindowEnd()),
        r -> Hashing.highestBid(r.f0, r.f1, r.f2, r.f3));
  }

  /** The highest price so far and the bids at it, as auction, bidder pairs in arrival order. */
  public static final class HighestBids {
    public int price;
    public ArrayList<Integer> bids = new ArrayList<>();

    public HighestBids() {}
  }

  static final class Highest implements AggregateFunction<Bid, HighestBids, HighestBids> {
    @Override
    public HighestBids createAccumulator() {
      return new HighestBids();
    }

    @Override
    public HighestBids add(Bid b, HighestBids acc) {
      if (b.price > acc.price) {
        acc.price = b.price;
        acc.bids.clear();
        acc.bids.add(b.auction);
        acc.bids.add(b.bidder);
      } else if (b.price == acc.price) {
        acc.bids.add(b.auction);
        acc.bids.add(b.bidder);
      }
      return acc;
    }

    @Override
    public HighestBids getResult(HighestBids acc) {
      return acc;
    }

    @Override
    public HighestBids merge(HighestBids a, HighestBids b) {
      if (a.price != b.price) return a.price > b.price ? a : b;
      a.bids.addAll(b.bids);
      return a;
    }
  }

  static final class WithWindowEnd
      extends ProcessAllWindowFunction<HighestBids, Tuple4<Long, Integer, Integer, Integer>, TimeWindow> {
    @Override
    public void process(Context ctx, Iterable<HighestBids> results, Collector<Tuple4<Long, Integer, Integer, Integer>> out) {
      HighestBids highest = results.iterator().next();
      long windowEnd = ctx.window().getEnd();
      for (int k = 0; k < highest.bids.size(); k += 2) {
        out.collect(Tuple4.of(windowEnd, highest.bids.get(k), highest.bids.get(k + 1), highest.price));
      }
    }
  }
}
