// Entry point of the Flink comparison: runs the seven workloads on a local MiniCluster and prints one JSON
// line per run (events/s, output count, checksum) for bench/run.ts to read.
//
// Run (after `mvn -q package` in bench/flink):
//   java -cp "target/classes:$(cat target/classpath.txt)" dev.weir.bench.Main --events 2000000 --runs 5 \
//        --warmup 1 --parallelism 1,2 [--workloads stateless,cep] [--seed 42] [--keys 10000] [--probe]
//        [--budget-seconds 20] [--object-reuse] [--rocksdb] [--checkpoint-every 1000] [--final-checkpoint]
// --rocksdb: then runs the durable-state workloads (rolling-count, tumbling-window, batching-timer) at parallelism 1
// on the embedded RocksDB state backend too, as system flink-rocksdb-p1.
// --parallelism none: no heap cells at all (with --rocksdb, the RocksDB cells alone).
// --checkpoint-every MS: then runs the durable-state workloads at parallelism 1 again with an aligned exactly-once
// checkpoint every MS ms into file-system checkpoint storage in a temp directory, on the heap (flink-checkpointed-p1)
// and, with --rocksdb, on RocksDB (flink-rocksdb-checkpointed-p1). A bounded job then ends without the final
// checkpoint Flink would otherwise wait for (it waits for the next periodic trigger, up to a whole interval, after
// the sources end); --final-checkpoint keeps Flink's default.
// --budget-seconds: when the warm-up (over a fifth of the events) shows the timed runs would take longer
// than this together, they use fewer events (a multiple of 10,000), as bench/runner/measure.ts does.
package dev.weir.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

public final class Main {
  private Main() {}

  private static final List<Workload> WORKLOADS = List.of(
      new StatelessWorkload(), new RollingCountWorkload(), new TumblingWindowWorkload(), new HotItemsWorkload(),
      new SessionWindowWorkload(), new CepWorkload(), new BatchingTimerWorkload(), new Q7Workload(),
      new Q8Workload());

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = parse(args);
    int events = Integer.parseInt(opts.getOrDefault("events", "1000000"));
    int runs = Integer.parseInt(opts.getOrDefault("runs", "5"));
    int warmup = Integer.parseInt(opts.getOrDefault("warmup", "1"));
    int seed = Integer.parseInt(opts.getOrDefault("seed", "42"));
    int keys = Integer.parseInt(opts.getOrDefault("keys", "10000"));
    boolean probe = opts.containsKey("probe");
    double budgetSeconds = Double.parseDouble(opts.getOrDefault("budget-seconds", "Infinity"));
    objectReuse = opts.containsKey("object-reuse");
    boolean rocksdb = opts.containsKey("rocksdb");
    List<Integer> parallelisms = new ArrayList<>();
    String parallelismList = opts.getOrDefault("parallelism", "1");
    if (!parallelismList.equals("none")) {
      for (String s : parallelismList.split(",")) parallelisms.add(Integer.parseInt(s.trim()));
    }
    long checkpointEvery = Long.parseLong(opts.getOrDefault("checkpoint-every", "0"));
    finalCheckpoint = opts.containsKey("final-checkpoint");
    List<String> only = opts.containsKey("workloads") ? List.of(opts.get("workloads").split(",")) : null;

    // Warm the JVM once over every selected workload (class loading, JIT of Flink's runtime), so the first
    // cell measured is not the one that pays for it; per-cell warm-ups then only settle that job's code.
    Params jvmWarmup = new Params(Math.max(1, Math.min(events / 10, 100_000)), seed,
        parallelisms.isEmpty() ? 1 : parallelisms.get(0), keys);
    for (Workload w : WORKLOADS) {
      if (only == null || only.contains(w.id())) runOnce(w, jvmWarmup, -2, true, false);
    }

    List<String> backends = new ArrayList<>();
    for (int parallelism : parallelisms) backends.add("hashmap:" + parallelism);
    if (checkpointEvery > 0) backends.add("hashmap:1:" + checkpointEvery);
    if (rocksdb) backends.add("rocksdb:1");
    if (rocksdb && checkpointEvery > 0) backends.add("rocksdb:1:" + checkpointEvery);
    for (String cell : backends) {
      String[] parts = cell.split(":");
      stateBackend = parts[0];
      int parallelism = Integer.parseInt(parts[1]);
      checkpointIntervalMs = parts.length > 2 ? Long.parseLong(parts[2]) : 0;
      boolean durableOnly = stateBackend.equals("rocksdb") || checkpointIntervalMs > 0;
      for (Workload w : WORKLOADS) {
        if (only != null && !only.contains(w.id())) continue;
        if (durableOnly && !DURABLE_STATE_WORKLOADS.contains(w.id())) continue;
        resetPeaks();
        Params p = new Params(events, seed, parallelism, keys);
        Params warm = new Params(Math.max(1, events / 5), seed, parallelism, keys);
        double warmupNetMillis = 0;
        for (int i = 0; i < warmup; i++) warmupNetMillis = runOnce(w, warm, -1, true, false);
        if (warmupNetMillis > 0 && Double.isFinite(budgetSeconds)) {
          double rate = warm.events / (warmupNetMillis / 1000.0);
          long affordable = (long) (rate * budgetSeconds / Math.max(1, runs) / 10_000) * 10_000;
          // The JVM's first job is cold, so the estimate is low: never go below a quarter of the input,
          // or task deployment (fixed, ~0.3 s) would dominate the net runtime.
          affordable = Math.max(affordable, Math.max(10_000, events / 4 / 10_000 * 10_000));
          if (affordable < events) p = new Params((int) affordable, seed, parallelism, keys);
        }
        for (int i = 0; i < runs; i++) runOnce(w, p, i, false, false);
        // The probe measures the JVM heap: RocksDB keeps its state off the heap, so it has no such figure.
        if (probe && w.stateKeys(p) > 0 && stateBackend.equals("hashmap") && checkpointIntervalMs == 0) {
          runOnce(w, p, runs, false, true);
        }
        emit(Map.of("type", "memory", "system", systemName(parallelism), "workload", w.id(), "parallelism", parallelism,
            "rssPeakBytes", rssPeakBytes(), "heapPeakBytes", heapPeakBytes()));
      }
    }
  }

  private static boolean objectReuse;
  /** Flink's state.backend.type of the cells being run: hashmap (the heap) or rocksdb. */
  private static String stateBackend = "hashmap";
  /** The checkpoint interval of the cells being run, in ms; 0: checkpointing off. */
  private static long checkpointIntervalMs;
  /** --final-checkpoint: bounded jobs wait for a final checkpoint after their sources end (Flink's default). */
  private static boolean finalCheckpoint;

  /** The workloads measured on durable state too (bench/workloads/params.ts DURABLE_STATE_WORKLOADS). */
  private static final List<String> DURABLE_STATE_WORKLOADS = List.of("rolling-count", "tumbling-window", "batching-timer");

  private static String systemName(int parallelism) {
    return "flink-" + (stateBackend.equals("rocksdb") ? "rocksdb-" : "")
        + (checkpointIntervalMs > 0 ? "checkpointed-" : "") + "p" + parallelism;
  }

  /** Runs one job and prints its line; returns the job's net runtime in milliseconds. */
  private static double runOnce(Workload w, Params p, int run, boolean warmup, boolean probe) throws Exception {
    Configuration conf = new Configuration();
    conf.set(StateBackendOptions.STATE_BACKEND, stateBackend); // hashmap: the heap; rocksdb: embedded RocksDB
    Path checkpoints = null;
    if (checkpointIntervalMs > 0) {
      // Warm-ups checkpoint too, so the timed runs do not pay for loading the checkpoint path's classes.
      checkpoints = Files.createTempDirectory("weir-bench-flink-checkpoints-");
      configureCheckpoints(conf, checkpoints, checkpointIntervalMs, finalCheckpoint);
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(p.parallelism);
    // Off by default in Flink, so chained operators copy each record; --object-reuse is the tuned setting.
    if (objectReuse) env.getConfig().enableObjectReuse();
    w.build(env, p);
    if (probe) {
      Thread.sleep(2_000); // let the previous job's MiniCluster finish shutting down before the baseline
      MemoryProbe.usedAfterGc();
      MemoryProbe.arm(0, p.events / 2);
    }
    long start = System.nanoTime();
    JobExecutionResult result = env.execute("weir-bench-" + w.id());
    long wallNanos = System.nanoTime() - start;
    MemoryProbe.disarm();
    long count = result.<Long>getAccumulatorResult(ChecksumCollector.COUNT) == null ? 0L
        : result.<Long>getAccumulatorResult(ChecksumCollector.COUNT);
    Long sum = result.<Long>getAccumulatorResult(ChecksumCollector.SUM);
    long checksum = sum == null ? 0L : sum & 0xFFFFFFFFL;
    long netMillis = result.getNetRuntime();
    Long completedCheckpoints = result.<Long>getAccumulatorResult(ChecksumCollector.CHECKPOINTS);
    if (checkpoints != null) deleteRecursively(checkpoints);
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("type", probe ? "probe" : "run");
    line.put("system", systemName(p.parallelism));
    line.put("parallelism", p.parallelism);
    line.put("workload", w.id());
    line.put("run", run);
    line.put("objectReuse", objectReuse);
    line.put("warmup", warmup);
    line.put("events", p.events);
    line.put("count", count);
    line.put("checksum", checksum);
    line.put("wallMs", wallNanos / 1e6);
    line.put("netMs", netMillis);
    // Throughput over the job's net runtime: excludes submitting the job to the MiniCluster, includes
    // deploying the tasks; wallMs has the whole execute() call.
    line.put("eventsPerSecond", p.events / (Math.max(netMillis, 1) / 1000.0));
    if (checkpointIntervalMs > 0) {
      line.put("checkpointEveryMs", checkpointIntervalMs);
      line.put("checkpoints", completedCheckpoints == null ? 0L : completedCheckpoints);
    }
    if (probe) {
      line.put("stateKeys", w.stateKeys(p));
      line.put("baselineHeapBytes", MemoryProbe.baselineHeap);
      line.put("measureHeapBytes", MemoryProbe.measureHeap);
      line.put("stateBytesPerKey", (MemoryProbe.measureHeap - MemoryProbe.baselineHeap) / (double) w.stateKeys(p));
    }
    emit(line);
    return netMillis;
  }

  /**
   * Aligned exactly-once checkpoints every `intervalMs` into file-system checkpoint storage under `dir` (full
   * checkpoints: Flink's default, incremental off). `finalCheckpoint` false ends a bounded job without waiting for
   * the final checkpoint.
   */
  static void configureCheckpoints(Configuration conf, Path dir, long intervalMs, boolean finalCheckpoint) {
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(intervalMs));
    conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
        org.apache.flink.core.execution.CheckpointingMode.EXACTLY_ONCE);
    conf.set(CheckpointingOptions.ENABLE_UNALIGNED, false);
    conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.toUri().toString());
    conf.set(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH, finalCheckpoint);
  }

  static void deleteRecursively(Path dir) throws java.io.IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(path);
    }
  }

  /** Resets the JVM heap pools' peaks and the kernel's peak RSS (VmHWM) of this process. */
  private static void resetPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) pool.resetPeakUsage();
    try {
      Files.writeString(Path.of("/proc/self/clear_refs"), "5");
    } catch (Exception ignored) {
      // Not Linux or not permitted: the RSS peak then covers the whole process.
    }
  }

  private static long heapPeakBytes() {
    long total = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) total += pool.getPeakUsage().getUsed();
    }
    return total;
  }

  private static long rssPeakBytes() {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
        if (l.startsWith("VmHWM:")) return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024L;
      }
    } catch (Exception ignored) {
      // fall through
    }
    return -1;
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> opts = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--")) throw new IllegalArgumentException("unexpected argument " + args[i]);
      String name = args[i].substring(2);
      if (i + 1 < args.length && !args[i + 1].startsWith("--")) opts.put(name, args[++i]);
      else opts.put(name, "true");
    }
    return opts;
  }

  /** One JSON object per line on stdout; everything else Flink prints goes to stderr. */
  static void emit(Map<String, ?> fields) {
    StringBuilder sb = new StringBuilder("{");
    boolean first = true;
    for (Map.Entry<String, ?> e : fields.entrySet()) {
      if (!first) sb.append(',');
      first = false;
      sb.append('"').append(e.getKey()).append("\":");
      Object v = e.getValue();
      if (v instanceof String) sb.append('"').append(v).append('"');
      else if (v instanceof Double d) sb.append(String.format(Locale.ROOT, "%.3f", d));
      else sb.append(v);
    }
    System.out.println(sb.append('}'));
    System.out.flush();
  }
}
