// Workload 3: keyBy(key) -> 1 s tumbling event-time windows -> incremental (count, sum) -> (key, start, count, sum).
package dev.weir.bench;

import java.time.Duration;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple4;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

public final class TumblingWindowWorkload implements Workload {
  @Override
  public String id() {
    return "tumbling-window";
  }

  @Override
  public int stateKeys(Params p) {
    return p.keys;
  }

  @Override
  public void build(StreamExecutionEnvironment env, Params p) {
    Workload.collect(
        Workload.events(env, p)
            .keyBy(e -> e.key)
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(p.tumblingSizeMs)))
            .aggregate(new CountSum(), new WithWindow()),
        r -> Hashing.windowAggregate(r.f0, r.f1, r.f2, r.f3));
  }

  static final class CountSum implements AggregateFunction<Event, Tuple2<Integer, Integer>, Tuple2<Integer, Integer>> {
    @Override
    public Tuple2<Integer, Integer> createAccumulator() {
      return Tuple2.of(0, 0);
    }

    @Override
    public Tuple2<Integer, Integer> add(Event e, Tuple2<Integer, Integer> acc) {
      acc.f0 += 1;
      acc.f1 += e.value;
      return acc;
    }

    @Override
    public Tuple2<Integer, Integer> getResult(Tuple2<Integer, Integer> acc) {
      return acc;
    }

    @Override
    public Tuple2<Integer, Integer> merge(Tuple2<Integer, Integer> a, Tuple2<Integer, Integer> b) {
      return Tuple2.of(a.f0 + b.f0, a.f1 + b.f1);
    }
  }

  static final class WithWindow
      extends ProcessWindowFunction<Tuple2<Integer, Integer>, Tuple4<Integer, Long, Integer, Integer>, Integer, TimeWindow> {
    @Override
    public void process(Integer key, Context ctx, Iterable<Tuple2<Integer, Integer>> aggregates,
        Collector<Tuple4<Integer, Long, Integer, Integer>> out) {
      Tuple2<Integer, Integer> agg = aggregates.iterator().next();
      out.collect(Tuple4.of(key, ctx.window().getStart(), agg.f0, agg.f1));
    }
  }
}
