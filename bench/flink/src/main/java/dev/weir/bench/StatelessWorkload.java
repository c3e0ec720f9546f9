// Workload 1: map e -> (key, value * 3 + 1) -> filter value % 4 != 0 -> discarding sink.
package dev.weir.bench;

import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

public final class StatelessWorkload implements Workload {
  @Override
  public String id() {
    return "stateless";
  }

  @Override
  public int stateKeys(Params p) {
    return 0;
  }

  @Override
  public void build(StreamExecutionEnvironment env, Params p) {
    Workload.collect(
        Workload.events(env, p).map(new Scale(p)).filter(new Keep(p)),
        r -> Hashing.stateless(r.f0, r.f1));
  }

  static final class Scale implements MapFunction<Event, Tuple2<Integer, Integer>> {
    private final int multiplier;
    private final int offset;

    Scale(Params p) {
      multiplier = p.multiplier;
      offset = p.offset;
    }

    @Override
    public Tuple2<Integer, Integer> map(Event e) {
      return Tuple2.of(e.key, e.value * multiplier + offset);
    }
  }

  static final class Keep implements FilterFunction<Tuple2<Integer, Integer>> {
    private final int modulus;

    Keep(Params p) {
      modulus = p.dropModulus;
    }

    @Override
    public boolean filter(Tuple2<Integer, Integer> r) {
      return r.f1 % modulus != 0;
    }
  }
}
