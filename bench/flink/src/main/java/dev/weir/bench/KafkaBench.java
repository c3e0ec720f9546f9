// Entry point of the Kafka comparison's Flink side: a warm JVM that runs the Kafka -> keyed running total ->
// Kafka job once per command it reads on stdin, and prints one JSON line per run for bench/kafka/ to read.
//
//   java -cp "target/classes:$(cat target/classpath.txt)" dev.weir.bench.KafkaBench --bootstrap 127.0.0.1:9092
// then, one command per line:
//   run <input topic> <output topic> <exactly-once|at-least-once> <parallelism> <checkpoint interval ms>
//       <checkpoint dir> <latest | stopping offset of partition 0,1,…>
// answers {"type":"kafka-run","output":…,"netMs":…,"wallMs":…} (or {"type":"kafka-error","message":…}).
// The output topic doubles as group id and transactional id prefix, so each run is on its own.
// The JVM stays up between runs so the later ones run JIT-compiled code, as the Node side does in one process.
package dev.weir.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.TopicPartition;

public final class KafkaBench {
  private KafkaBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    String bootstrap = required(opts, "bootstrap");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    emit(Map.of("type", "kafka-ready"));
    for (String line; (line = in.readLine()) != null; ) {
      String[] cmd = line.trim().split("\\s+");
      if (cmd.length == 1 && cmd[0].equals("quit")) break;
      if (cmd.length != 8 || !cmd[0].equals("run")) {
        emit(Map.of("type", "kafka-error", "message", "unknown command: " + line));
        continue;
      }
      try {
        run(bootstrap, cmd[1], cmd[2], guarantee(cmd[3]), Integer.parseInt(cmd[4]), Long.parseLong(cmd[5]), cmd[6],
            stoppingOffsets(cmd[1], cmd[7]));
      } catch (Exception e) {
        Throwable root = e;
        while (root.getCause() != null) root = root.getCause();
        emit(Map.of("type", "kafka-error", "message", (e + " / " + root).replace('"', '\'').replace('\n', ' ')));
      }
    }
  }

  private static void run(String bootstrap, String input, String output, DeliveryGuarantee guarantee,
      int parallelism, long checkpointMs, String checkpointDir, OffsetsInitializer stop) throws Exception {
    Configuration conf = new Configuration();
    conf.set(StateBackendOptions.STATE_BACKEND, "hashmap");
    // Checkpoints go to files, as Weir's do (its storage is a directory).
    conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, "file://" + checkpointDir);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(parallelism);
    env.enableCheckpointing(checkpointMs);

    KafkaSource<KafkaOrder> source = KafkaSource.<KafkaOrder>builder()
        .setBootstrapServers(bootstrap)
        .setTopics(input)
        .setGroupId(output)
        .setStartingOffsets(OffsetsInitializer.earliest())
        .setBounded(stop)
        .setValueOnlyDeserializer(new KafkaOrderDeserializer())
        .setProperty("isolation.level", "read_committed")
        .build();
    KafkaSink<KafkaUserTotal> sink = KafkaSink.<KafkaUserTotal>builder()
        .setBootstrapServers(bootstrap)
        .setRecordSerializer(new KafkaUserTotalSerializer(output))
        .setDeliveryGuarantee(guarantee)
        .setTransactionalIdPrefix(output)
        // The sink's default (1 h) exceeds the broker's transaction.max.timeout.ms (15 min), which it refuses.
        .setProperty("transaction.timeout.ms", "600000")
        .build();
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "orders")
        .keyBy(order -> order.user)
        .process(new KafkaRunningTotal())
        .name("running total")
        .sinkTo(sink)
        .name("totals");

    long start = System.nanoTime();
    JobExecutionResult result = env.execute("weir-bench-kafka");
    long wallNanos = System.nanoTime() - start;
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("type", "kafka-run");
    line.put("output", output);
    // Net runtime: from the job's start to its end, including task deployment and the final checkpoint that
    // commits the last transaction; excludes starting the MiniCluster, which wallMs includes.
    line.put("netMs", result.getNetRuntime());
    line.put("wallMs", wallNanos / 1e6);
    emit(line);
  }

  /** "latest": the end of the topic when the job starts; else the offset each partition stops at, in order. */
  private static OffsetsInitializer stoppingOffsets(String topic, String spec) {
    if (spec.equals("latest")) return OffsetsInitializer.latest();
    Map<TopicPartition, Long> offsets = new HashMap<>();
    String[] parts = spec.split(",");
    for (int p = 0; p < parts.length; p++) offsets.put(new TopicPartition(topic, p), Long.parseLong(parts[p]));
    return OffsetsInitializer.offsets(offsets);
  }

  private static DeliveryGuarantee guarantee(String name) {
    return switch (name) {
      case "exactly-once" -> DeliveryGuarantee.EXACTLY_ONCE;
      case "at-least-once" -> DeliveryGuarantee.AT_LEAST_ONCE;
      default -> throw new IllegalArgumentException("delivery guarantee must be exactly-once or at-least-once: " + name);
    };
  }

  private static String required(Map<String, String> opts, String name) {
    String value = opts.get(name);
    if (value == null) throw new IllegalArgumentException("--" + name + " is required");
    return value;
  }

  /** One JSON object per line on stdout; everything Flink logs goes to stderr. */
  private static void emit(Map<String, ?> fields) {
    StringBuilder sb = new StringBuilder("{");
    boolean first = true;
    for (Map.Entry<String, ?> e : fields.entrySet()) {
      if (!first) sb.append(',');
      first = false;
      sb.append('"').append(e.getKey()).append("\":");
      Object v = e.getValue();
      if (v instanceof String) sb.append('"').append(v).append('"');
      else sb.append(v);
    }
    System.out.println(sb.append('}'));
    System.out.flush();
  }
}
