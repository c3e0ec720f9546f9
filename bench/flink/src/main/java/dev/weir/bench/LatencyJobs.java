// The latency runs' three jobs on Flink: rolling count, batching and CEP from the paced source to a recorder that
// times every output from its reference event (docs/performance.md, "Latency at fixed input rates"). The
// computations are those of RollingCountWorkload, BatchingTimerWorkload and CepWorkload; the outputs carry what the
// recorder needs to find their reference event, and hash as those workloads' outputs do. Port of
// bench/latency/weir-latency-jobs.ts.
package dev.weir.bench;

import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.api.java.tuple.Tuple5;
import org.apache.flink.cep.CEP;
import org.apache.flink.cep.functions.PatternProcessFunction;
import org.apache.flink.cep.pattern.Pattern;
import org.apache.flink.cep.pattern.conditions.SimpleCondition;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

final class LatencyJobs {
  private LatencyJobs() {}

  static final List<String> WORKLOADS = List.of("rolling-count", "batching-timer", "cep");

  static void build(String workload, StreamExecutionEnvironment env, Params p) {
    switch (workload) {
      case "rolling-count" -> record(
          events(env, p, false).keyBy(e -> e.key).process(new RollingCount()),
          r -> Hashing.rollingCount(r.f0, r.f1), r -> r.f2, r -> false);
      case "batching-timer" -> record(
          events(env, p, true).keyBy(e -> e.key).process(new Batching(p.batchSize, p.batchTimeoutMs)),
          r -> Hashing.batch(r.f0, r.f1, r.f2),
          r -> r.f3 >= 0 ? r.f3 : LatencyRecording.indexFor(r.f4),
          r -> r.f3 < 0);
      case "cep" -> {
        final int probeBelow = p.probeBelow;
        final int largeAtLeast = p.largeAtLeast;
        final int drainAtLeast = p.drainAtLeast;
        Pattern<Event, Event> pattern = Pattern.<Event>begin("probe")
            .where(SimpleCondition.of(e -> e.value < probeBelow))
            .followedBy("large")
            .where(SimpleCondition.of(e -> e.value >= largeAtLeast))
            .followedBy("drain")
            .where(SimpleCondition.of(e -> e.value >= drainAtLeast))
            .within(Duration.ofMillis(p.withinMs));
        record(
            CEP.pattern(events(env, p, true).keyBy(e -> e.key), pattern, new CepWorkload.ById()).inEventTime()
                .process(new ToMatch()),
            r -> Hashing.cepMatch(r.f0, r.f1, r.f2, r.f3),
            r -> {
              // Released once the watermark passes the completing event: never before that event itself.
              int watermark = LatencyRecording.indexFor(r.f4);
              return watermark < 0 ? -1L : (long) Math.max(watermark, r.f3);
            },
            r -> false);
      }
      default -> throw new IllegalArgumentException("no latency job " + workload);
    }
  }

  private static DataStream<Event> events(StreamExecutionEnvironment env, Params p, boolean watermarks) {
    WatermarkStrategy<Event> strategy = watermarks
        ? WatermarkStrategy.<Event>forBoundedOutOfOrderness(Duration.ofMillis(p.outOfOrdernessMs))
            .withTimestampAssigner((e, previous) -> e.ts)
        : WatermarkStrategy.noWatermarks();
    return env.fromSource(new PacedSource(p), strategy, "events").setParallelism(1);
  }

  interface Fn<T, R> extends Serializable {
    R apply(T value);
  }

  private static <T> void record(DataStream<T> results, ChecksumCollector.RecordHasher<T> hasher,
      Fn<T, Long> reference, Fn<T, Boolean> timer) {
    results.process(new Recorder<>(hasher, reference, timer)).name("latency").sinkTo(new DiscardingSink<>());
  }

  /** The sink side: chained to the last operator, it times each output as it arrives. */
  static final class Recorder<T> extends ProcessFunction<T, Void> {
    private final ChecksumCollector.RecordHasher<T> hasher;
    private final Fn<T, Long> reference;
    private final Fn<T, Boolean> timer;

    Recorder(ChecksumCollector.RecordHasher<T> hasher, Fn<T, Long> reference, Fn<T, Boolean> timer) {
      this.hasher = hasher;
      this.reference = reference;
      this.timer = timer;
    }

    @Override
    public void processElement(T record, Context ctx, Collector<Void> out) {
      LatencyRecording.record(reference.apply(record), hasher.hash(record), timer.apply(record));
    }
  }

  /** (key, count, id of the event counted). */
  static final class RollingCount extends KeyedProcessFunction<Integer, Event, Tuple3<Integer, Integer, Long>> {
    private transient ValueState<Integer> count;

    @Override
    public void open(OpenContext ctx) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.INT));
    }

    @Override
    public void processElement(Event e, Context ctx, Collector<Tuple3<Integer, Integer, Long>> out) throws Exception {
      Integer current = count.value();
      int next = current == null ? 1 : current + 1;
      count.update(next);
      out.collect(Tuple3.of(e.key, next, e.id));
    }
  }

  /**
   * BatchingTimerWorkload's Batching, with (uid, count, firstTs, id of the closing event or -1 for the timer, the
   * timer's time) as output.
   */
  static final class Batching extends KeyedProcessFunction<Integer, Event, Tuple5<Integer, Integer, Long, Long, Long>> {
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
    public void processElement(Event e, Context ctx, Collector<Tuple5<Integer, Integer, Long, Long, Long>> out)
        throws Exception {
      Integer n = count.value();
      if (n != null && e.ts >= firstTs.value() + timeoutMs) {
        emit(e.key, n, e.id, ctx, out);
        n = null;
      }
      if (n == null) {
        firstTs.update(e.ts);
        ctx.timerService().registerEventTimeTimer(e.ts + timeoutMs);
        n = 0;
      }
      n += 1;
      if (n == size) emit(e.key, n, e.id, ctx, out);
      else count.update(n);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Tuple5<Integer, Integer, Long, Long, Long>> out)
        throws Exception {
      out.collect(Tuple5.of(ctx.getCurrentKey(), count.value(), firstTs.value(), -1L, timestamp));
      count.clear();
      firstTs.clear();
    }

    private void emit(int uid, int n, long closedBy, Context ctx, Collector<Tuple5<Integer, Integer, Long, Long, Long>> out)
        throws Exception {
      long first = firstTs.value();
      out.collect(Tuple5.of(uid, n, first, closedBy, first + timeoutMs));
      ctx.timerService().deleteEventTimeTimer(first + timeoutMs);
      count.clear();
      firstTs.clear();
    }
  }

  /** (key, probe id, large id, drain id, drain timestamp). */
  static final class ToMatch extends PatternProcessFunction<Event, Tuple5<Integer, Integer, Integer, Integer, Long>> {
    @Override
    public void processMatch(Map<String, List<Event>> match, Context ctx,
        Collector<Tuple5<Integer, Integer, Integer, Integer, Long>> out) {
      Event probe = match.get("probe").get(0);
      Event large = match.get("large").get(0);
      Event drain = match.get("drain").get(0);
      out.collect(Tuple5.of(probe.key, (int) probe.id, (int) large.id, (int) drain.id, drain.ts));
    }
  }
}
