// Flink's side of the latency benchmark (bench/latency/main.ts runs it): for each buffer timeout and workload, an
// unpaced warm-up and an unpaced run for the maximum rate, then paced runs at each rate; one JSON line per run.
//
//   java -cp "target/classes:$(cat target/classpath.txt)" dev.weir.bench.LatencyMain --rates 100000,1000000,half \
//        --seconds 5 --runs 3 --max-events 1000000 [--warmup-fraction 0.1] [--workloads cep] [--seed 42]
//        [--keys 10000] [--buffer-timeouts default,0]
// --buffer-timeouts: `default` leaves Flink's (100 ms; system flink-p1), a number sets env.setBufferTimeout(ms)
// (system flink-p1-bt<ms>).
package dev.weir.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

public final class LatencyMain {
  private LatencyMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--")) throw new IllegalArgumentException("unexpected argument " + args[i]);
      opts.put(args[i].substring(2), i + 1 < args.length && !args[i + 1].startsWith("--") ? args[++i] : "true");
    }
    List<String> rates = List.of(opts.getOrDefault("rates", "100000,1000000,half").split(","));
    double seconds = Double.parseDouble(opts.getOrDefault("seconds", "5"));
    int runs = Integer.parseInt(opts.getOrDefault("runs", "3"));
    int maxEvents = Integer.parseInt(opts.getOrDefault("max-events", "1000000"));
    double warmupFraction = Double.parseDouble(opts.getOrDefault("warmup-fraction", "0.1"));
    int seed = Integer.parseInt(opts.getOrDefault("seed", "42"));
    int keys = Integer.parseInt(opts.getOrDefault("keys", "10000"));
    List<String> workloads = opts.containsKey("workloads") ? List.of(opts.get("workloads").split(",")) : LatencyJobs.WORKLOADS;
    List<String> bufferTimeouts = List.of(opts.getOrDefault("buffer-timeouts", "default,0").split(","));

    for (String bufferTimeout : bufferTimeouts) {
      String system = bufferTimeout.equals("default") ? "flink-p1" : "flink-p1-bt" + bufferTimeout;
      for (String workload : workloads) {
        runOnce(workload, bufferTimeout, new Params(maxEvents, seed, 1, keys), Double.POSITIVE_INFINITY); // warm-up
        Params unpaced = new Params(maxEvents, seed, 1, keys);
        runOnce(workload, bufferTimeout, unpaced, Double.POSITIVE_INFINITY);
        double ms = (LatencyRecording.lastOutputNanos - LatencyRecording.t0) / 1e6;
        double max = maxEvents / ms * 1000;
        Map<String, Object> maxLine = new LinkedHashMap<>();
        maxLine.put("type", "max");
        maxLine.put("system", system);
        maxLine.put("workload", workload);
        maxLine.put("events", maxEvents);
        maxLine.put("ms", ms);
        maxLine.put("rate", max);
        maxLine.put("count", LatencyRecording.count);
        maxLine.put("checksum", LatencyRecording.sum & 0xFFFFFFFFL);
        emit(maxLine);
        for (String rateSpec : rates) {
          double rate = rateSpec.equals("half") ? Math.max(1000, Math.round(max / 2 / 1000) * 1000.0) : Double.parseDouble(rateSpec);
          int events = (int) Math.max(1000, Math.round(rate * seconds));
          for (int r = 0; r < runs; r++) {
            runOnce(workload, bufferTimeout, new Params(events, seed, 1, keys), rate);
            int end = LatencyRecording.end;
            double lagMs = (LatencyRecording.lastEmitNanos - LatencyRecording.dueNanos(end - 1L)) / 1e6;
            double durationMs = (end - 1) * 1000.0 / rate;
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("type", "latency");
            line.put("system", system);
            line.put("workload", workload);
            line.put("rateSpec", rateSpec.equals("half") ? "half" : (Object) rate);
            line.put("rate", rate);
            line.put("events", end);
            line.put("count", LatencyRecording.count);
            line.put("checksum", LatencyRecording.sum & 0xFFFFFFFFL);
            line.put("untimed", LatencyRecording.untimed);
            line.put("achievedRate", end / ((LatencyRecording.lastEmitNanos - LatencyRecording.t0) / 1e9));
            line.put("lagMs", lagMs);
            // bench/latency/latency-types.ts fellBehind().
            line.put("fellBehind", end < events || lagMs > Math.max(50, durationMs * 0.05));
            line.put("latency", LatencyRecording.summary(warmupFraction));
            if (workload.equals("batching-timer")) line.put("timerLatency", LatencyRecording.timerSummary(warmupFraction));
            emit(line);
          }
        }
      }
    }
  }

  private static void runOnce(String workload, String bufferTimeout, Params p, double rate) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
    env.setParallelism(1);
    if (!bufferTimeout.equals("default")) env.setBufferTimeout(Long.parseLong(bufferTimeout));
    LatencyJobs.build(workload, env, p);
    LatencyRecording.reset(p, rate, p.events);
    System.gc();
    JobExecutionResult ignored = env.execute("weir-latency-" + workload);
  }

  /** One JSON object per line on stdout (nested maps for the summaries; NaN as null). */
  private static void emit(Map<String, ?> fields) {
    System.out.println(json(fields));
    System.out.flush();
  }

  private static String json(Object v) {
    if (v instanceof Map<?, ?> map) {
      List<String> parts = new ArrayList<>();
      for (Map.Entry<?, ?> e : map.entrySet()) parts.add('"' + e.getKey().toString() + "\":" + json(e.getValue()));
      return "{" + String.join(",", parts) + "}";
    }
    if (v instanceof String s) return '"' + s + '"';
    if (v instanceof Double d) return d.isNaN() || d.isInfinite() ? "null" : String.format(Locale.ROOT, "%.4f", d);
    return String.valueOf(v);
  }
}
