// The Flink side of the checkpoint-state benchmark: builds N MB of keyed state (one ValueState<String> of 200 letters
// per key) in a running job on a local MiniCluster, takes one full checkpoint of it into file-system checkpoint
// storage in a temp directory, and prints one JSON line per run: the checkpoint's end-to-end duration, its
// synchronous and asynchronous parts and its size from Flink's checkpoint statistics, and the bytes in the checkpoint
// directory. bench/weir/checkpoint-job.ts is Weir's side; bench/runner/checkpoint-state.ts runs both.
//
// Run (after `mvn -q package` in bench/flink):
//   java -cp "target/classes:$(cat target/classpath.txt)" dev.weir.bench.CheckpointStateMain \
//        --mb 64[,1024] [--backend hashmap,rocksdb] [--runs 3]
package dev.weir.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.SubtaskStateStats;
import org.apache.flink.runtime.checkpoint.TaskStateStats;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

public final class CheckpointStateMain {
  private CheckpointStateMain() {}

  /** Bytes of each key's value, and the per-entry overhead the key count is sized with (checkpoint-state.ts). */
  static final int VALUE_BYTES = 200;
  static final int ENTRY_OVERHEAD = 40;

  /** Keys whose state the running job has written: the MiniCluster shares this JVM, so the driver reads it. */
  static final AtomicLong BUILT = new AtomicLong();

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) opts.put(args[i].substring(2), args[i + 1]);
    int runs = Integer.parseInt(opts.getOrDefault("runs", "3"));
    List<Integer> sizes = new ArrayList<>();
    for (String s : opts.getOrDefault("mb", "64").split(",")) sizes.add(Integer.parseInt(s.trim()));
    for (int mb : sizes) {
      for (String backend : opts.getOrDefault("backend", "hashmap,rocksdb").split(",")) {
        for (int run = 0; run < runs; run++) runOnce(backend, mb, run);
      }
    }
  }

  /** The key count for `mb` megabytes of values: the same as Weir's (bench/weir/checkpoint-job.ts). */
  static int keysFor(int mb) {
    return (int) Math.floor(mb * 1e6 / (VALUE_BYTES + ENTRY_OVERHEAD));
  }

  private static void runOnce(String backend, int mb, int run) throws Exception {
    int keys = keysFor(mb);
    Path dir = Files.createTempDirectory("weir-bench-flink-checkpoint-state-");
    Configuration conf = new Configuration();
    conf.set(StateBackendOptions.STATE_BACKEND, backend);
    // Periodic checkpoints are configured (the coordinator needs them) but never due: the one measured is triggered.
    Main.configureCheckpoints(conf, dir, TimeUnit.HOURS.toMillis(1), true);
    MiniClusterConfiguration clusterConf = new MiniClusterConfiguration.Builder()
        .setConfiguration(conf).setNumTaskManagers(1).setNumSlotsPerTaskManager(1).build();
    BUILT.set(0);
    try (MiniCluster cluster = new MiniCluster(clusterConf)) {
      cluster.start();
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
      env.setParallelism(1);
      DataGeneratorSource<Tuple2<Integer, String>> source = new DataGeneratorSource<>(
          new StateThenIdle(keys), Long.MAX_VALUE, Types.TUPLE(Types.INT, Types.STRING));
      env.fromSource(source, WatermarkStrategy.noWatermarks(), "keys")
          .filter(t -> t.f0 >= 0)
          .keyBy(t -> t.f0, TypeInformation.of(Integer.class))
          .process(new Store())
          .sinkTo(new DiscardingSink<>());
      long start = System.nanoTime();
      JobID job = cluster.submitJob(env.getStreamGraph()).get().getJobID();
      while (BUILT.get() < keys) Thread.sleep(20);
      double buildMs = (System.nanoTime() - start) / 1e6;

      long trigger = System.nanoTime();
      long id = cluster.triggerCheckpoint(job, CheckpointType.FULL).get();
      double triggerToCompleteMs = (System.nanoTime() - trigger) / 1e6;
      AbstractCheckpointStats stats = completedStats(cluster, job, id);

      Map<String, Object> line = new LinkedHashMap<>();
      line.put("type", "checkpoint-state");
      line.put("system", backend.equals("rocksdb") ? "flink-rocksdb-p1" : "flink-p1");
      line.put("run", run);
      line.put("mb", mb);
      line.put("keys", keys);
      line.put("valueBytes", VALUE_BYTES);
      line.put("buildMs", buildMs);
      line.put("triggerToCompleteMs", triggerToCompleteMs);
      line.put("directoryBytes", directoryBytes(dir));
      if (stats != null) {
        line.put("durationMs", (double) stats.getEndToEndDuration());
        line.put("stateBytes", stats.getStateSize());
        line.put("checkpointedBytes", stats.getCheckpointedSize());
        long sync = 0;
        long async = 0;
        for (TaskStateStats task : stats.getAllTaskStateStats()) {
          SubtaskStateStats subtask = task.getLatestAcknowledgedSubtaskStats();
          if (subtask == null) continue;
          sync = Math.max(sync, subtask.getSyncCheckpointDuration());
          async = Math.max(async, subtask.getAsyncCheckpointDuration());
        }
        line.put("syncMs", (double) sync);
        line.put("asyncMs", (double) async);
      }
      Main.emit(line);
      cluster.cancelJob(job).get();
      while (!cluster.getJobStatus(job).get().isGloballyTerminalState()) Thread.sleep(20);
    } finally {
      Main.deleteRecursively(dir);
    }
  }

  /** The statistics of completed checkpoint `id` (the tracker may publish them a moment after completion). */
  private static AbstractCheckpointStats completedStats(MiniCluster cluster, JobID job, long id) throws Exception {
    for (int attempt = 0; attempt < 100; attempt++) {
      AccessExecutionGraph graph = cluster.getExecutionGraph(job).get();
      AbstractCheckpointStats stats = graph.getCheckpointStatsSnapshot().getHistory().getCheckpointById(id);
      if (stats != null && stats.getStatus().isCompleted()) return stats;
      Thread.sleep(50);
    }
    return null;
  }

  private static long directoryBytes(Path dir) throws Exception {
    try (Stream<Path> paths = Files.walk(dir)) {
      return paths.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }


  /**
   * Key i's value for i below the key count, then fillers with key -1, one per millisecond, that the job drops: the
   * source never ends, so the state stays live until the driver has its checkpoint and cancels the job, and between
   * fillers the task takes the checkpoint's barrier.
   */
  static final class StateThenIdle implements GeneratorFunction<Long, Tuple2<Integer, String>> {
    private static final long serialVersionUID = 1L;
    private final int keys;

    StateThenIdle(int keys) {
      this.keys = keys;
    }

    @Override
    public Tuple2<Integer, String> map(Long index) throws Exception {
      if (index < keys) return Tuple2.of(index.intValue(), value(index.intValue()));
      Thread.sleep(1);
      return Tuple2.of(-1, "");
    }
  }

  /**
   * Key `key`'s value: 200 letters drawn by a linear congruential generator seeded with the key (stateValue in
   * bench/weir/checkpoint-job.ts draws the same), so values differ and do not compress.
   */
  static String value(int key) {
    char[] chars = new char[VALUE_BYTES];
    int x = key * 0x9e3779b1 + 1;
    for (int i = 0; i < VALUE_BYTES; i++) {
      x = x * 1103515245 + 12345;
      chars[i] = (char) ('a' + ((x >>> 16) % 26));
    }
    return new String(chars);
  }

  /** Keeps each key's value in ValueState and counts the keys written. */
  static final class Store extends KeyedProcessFunction<Integer, Tuple2<Integer, String>, Void> {
    private transient ValueState<String> state;

    @Override
    public void open(OpenContext ctx) {
      state = getRuntimeContext().getState(new ValueStateDescriptor<>("value", Types.STRING));
    }

    @Override
    public void processElement(Tuple2<Integer, String> t, Context ctx, Collector<Void> out) throws Exception {
      state.update(t.f1);
      BUILT.incrementAndGet();
    }
  }
}
