// One benchmark workload: adds its pipeline, from generated source to ChecksumCollector, to an environment.
package dev.weir.bench;

import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

public interface Workload {
  /** The id used by bench/run.ts (bench/workloads/params.ts WORKLOAD_IDS). */
  String id();

  /** Distinct keys that hold state, for bytes per key. */
  int stateKeys(Params p);

  void build(StreamExecutionEnvironment env, Params p);

  /**
   * The generic events, the source at the job's parallelism (each subtask generates a range of the indices), as
   * Weir's weir-p2 runs its generator at the job's parallelism. Every workload that reads it has a result
   * independent of per-key arrival order (CEP breaks timestamp ties by id). Bounded out-of-orderness watermarks,
   * periodic (every 200 ms, Flink's default).
   */
  static DataStream<Event> events(StreamExecutionEnvironment env, Params p) {
    return events(env, p, p.parallelism);
  }

  /**
   * The generic events as one ordered stream: the source runs at parallelism 1 (like one Kafka partition), so
   * per-key arrival order, and with it a result that depends on it (batching-timer), is the same at any parallelism.
   */
  static DataStream<Event> orderedEvents(StreamExecutionEnvironment env, Params p) {
    return events(env, p, 1);
  }

  /** events(), its source subtasks aligned when WEIR_BENCH_ALIGN asks for it (see {@link #benchAlignment}). */
  static DataStream<Event> alignedEvents(StreamExecutionEnvironment env, Params p) {
    return events(env, p, p.parallelism, true);
  }

  private static DataStream<Event> events(StreamExecutionEnvironment env, Params p, int parallelism) {
    return events(env, p, parallelism, false);
  }

  private static DataStream<Event> events(StreamExecutionEnvironment env, Params p, int parallelism, boolean align) {
    DataGeneratorSource<Event> source =
        new DataGeneratorSource<>(new Generators.EventGenerator(p), p.events, TypeInformation.of(Event.class));
    WatermarkStrategy<Event> watermarks = WatermarkStrategy.<Event>forBoundedOutOfOrderness(Duration.ofMillis(p.outOfOrdernessMs))
        .withTimestampAssigner((e, previous) -> e.ts);
    if (align) watermarks = benchAlignment(watermarks);
    return env.fromSource(source, watermarks, "events").setParallelism(parallelism);
  }

  /** The bids, the source at the job's parallelism, like events(). */
  static DataStream<Bid> bids(StreamExecutionEnvironment env, Params p) {
    return bids(env, p, false);
  }

  /** bids(), its source subtasks aligned when WEIR_BENCH_ALIGN asks for it (see {@link #benchAlignment}). */
  static DataStream<Bid> alignedBids(StreamExecutionEnvironment env, Params p) {
    return bids(env, p, true);
  }

  private static DataStream<Bid> bids(StreamExecutionEnvironment env, Params p, boolean align) {
    DataGeneratorSource<Bid> source =
        new DataGeneratorSource<>(new Generators.BidGenerator(p), p.events, TypeInformation.of(Bid.class));
    WatermarkStrategy<Bid> watermarks = WatermarkStrategy.<Bid>forBoundedOutOfOrderness(Duration.ofMillis(p.bidOutOfOrdernessMs))
        .withTimestampAssigner((b, previous) -> b.ts);
    if (align) watermarks = benchAlignment(watermarks);
    return env.fromSource(source, watermarks, "bids").setParallelism(p.parallelism);
  }

  /**
   * {@code WEIR_BENCH_ALIGN=drift:interval} (ms) aligns the source subtasks of the workloads that read it (hot items,
   * sessions, CEP) in one group with that drift and update interval, as bench/weir/worker-alignment.ts does for Weir's
   * jobs, so flink-p2 with alignment compares with weir-p2 with alignment (FLIP-27 sources, FLIP-182). Unset: the
   * strategy as it is.
   */
  static <T> WatermarkStrategy<T> benchAlignment(WatermarkStrategy<T> strategy) {
    String setting = System.getenv("WEIR_BENCH_ALIGN");
    if (setting == null || setting.isEmpty()) return strategy;
    String[] parts = setting.split(":");
    long drift = Long.parseLong(parts[0]);
    long interval = parts.length > 1 ? Long.parseLong(parts[1]) : 1000;
    return strategy.withWatermarkAlignment("bench", Duration.ofMillis(drift), Duration.ofMillis(interval));
  }

  /** The Nexmark events (persons, auctions, bids), the source at the job's parallelism, like events(). */
  static DataStream<NexmarkEvent> nexmark(StreamExecutionEnvironment env, Params p) {
    DataGeneratorSource<NexmarkEvent> source = new DataGeneratorSource<>(
        new Generators.NexmarkGenerator(p), p.events, TypeInformation.of(NexmarkEvent.class));
    WatermarkStrategy<NexmarkEvent> watermarks = WatermarkStrategy
        .<NexmarkEvent>forBoundedOutOfOrderness(Duration.ofMillis(p.nexmarkOutOfOrdernessMs))
        .withTimestampAssigner((e, previous) -> e.ts);
    return env.fromSource(source, watermarks, "nexmark").setParallelism(p.parallelism);
  }

  /** Ends a pipeline: checksum the records, then discard them. */
  static <T> void collect(DataStream<T> results, ChecksumCollector.RecordHasher<T> hasher) {
    results.process(new ChecksumCollector<>(hasher)).name("checksum").sinkTo(new DiscardingSink<>()).name("discard");
  }
}
