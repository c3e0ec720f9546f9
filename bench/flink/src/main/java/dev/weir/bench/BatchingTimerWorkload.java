// Workload 7: per-user batching in a KeyedProcessFunction with one event-time timer per key: emit
// (uid, count, firstTs) at 8 events (deleting the timer), when the timer at firstTs + 1 s fires, or when an
// event at or past the timer's time arrives first (so results do not depend on watermark emission times).
package dev.weir.bench;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

public final class BatchingTimerWorkload implements Workload {
  @Override
  public String id() {
    return "batching-timer";
  }

  @Override
  public int stateKeys(Params p) {
    return p.keys;
  }

  @Override
  public void build(StreamExecutionEnvironment env, Params p) {
    Workload.collect(
        Workload.orderedEvents(env, p).keyBy(e -> e.key).process(new Batching(p.batchSize, p.batchTimeoutMs)),
        r -> Hashing.batch(r.f0, r.f1, r.f2));
  }

  static final class Batching extends KeyedProcessFunction<Integer, Event, Tuple3<Integer, Integer, Long>> {
    private final int size;
    private final long timeoutMs;
    private transient ValueState<Integer> count;
    private transient ValueState<Long> firstTs;

    Batching(int size, long timeoutMs) {
      this.size = size;
      this.timeoutMs = timeoutMs;
    }

    @Override
    public void open(OpenContext ctx) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.INT));
      firstTs = getRuntimeContext().getState(new ValueStateDescriptor<>("firstTs", Types.LONG));
    }

    @Override
    public void processElement(Event e, Context ctx, Collector<Tuple3<Integer, Integer, Long>> out) throws Exception {
      Integer n = count.value();
      if (n != null && e.ts >= firstTs.value() + timeoutMs) {
        emit(e.key, n, ctx, out);
        n = null;
      }
      if (n == null) {
        firstTs.update(e.ts);
        ctx.timerService().registerEventTimeTimer(e.ts + timeoutMs);
        n = 0;
      }
      n += 1;
      if (n == size) emit(e.key, n, ctx, out);
      else count.update(n);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Tuple3<Integer, Integer, Long>> out) throws Exception {
      out.collect(Tuple3.of(ctx.getCurrentKey(), count.value(), firstTs.value()));
      count.clear();
      firstTs.clear();
    }

    private void emit(int uid, int n, Context ctx, Collector<Tuple3<Integer, Integer, Long>> out) throws Exception {
      long first = firstTs.value();
      out.collect(Tuple3.of(uid, n, first));
      ctx.timerService().deleteEventTimeTimer(first + timeoutMs);
      count.clear();
      firstTs.clear();
    }
  }
}
