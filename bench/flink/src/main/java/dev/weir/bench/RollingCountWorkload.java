// Workload 2: keyBy(key) -> KeyedProcessFunction with ValueState<Integer> count -> (key, count) per event.
package dev.weir.bench;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

public final class RollingCountWorkload implements Workload {
  @Override
  public String id() {
    return "rolling-count";
  }

  @Override
  public int stateKeys(Params p) {
    return p.keys;
  }

  @Override
  public void build(StreamExecutionEnvironment env, Params p) {
    Workload.collect(
        Workload.events(env, p).keyBy(e -> e.key).process(new RollingCount()),
        r -> Hashing.rollingCount(r.f0, r.f1));
  }

  static final class RollingCount extends KeyedProcessFunction<Integer, Event, Tuple2<Integer, Integer>> {
    private transient ValueState<Integer> count;

    @Override
    public void open(OpenContext ctx) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.INT));
    }

    @Override
    public void processElement(Event e, Context ctx, Collector<Tuple2<Integer, Integer>> out) throws Exception {
      Integer current = count.value();
      int next = current == null ? 1 : current + 1;
      count.update(next);
      out.collect(Tuple2.of(e.key, next));
    }
  }
}
