// The latency runs' shared state: the pacing (t0, period, where the source stopped) and the sink's recording (one
// latency per output, count and checksum). Static, because the MiniCluster runs the source and the sink tasks in
// this JVM (as MemoryProbe relies on); one run at a time. Port of bench/latency/{paced-source,latency-recorder,
// watermark-reference}.ts.
package dev.weir.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

final class LatencyRecording {
  private LatencyRecording() {}

  /** System.nanoTime() of the source's first poll; 0 until then. */
  static volatile long t0;
  /** Nanoseconds between two due times; 0 for an unpaced run. */
  static volatile double periodNanos;
  /** The run's events, and where it ends: fewer when the source gave up (far behind the due times). */
  static volatile int events;
  static volatile int end;
  static volatile long giveUpNanos;
  static volatile long lastEmitNanos;
  /** System.nanoTime() of the last output the sink received. */
  static volatile long lastOutputNanos;

  /** See WatermarkReference in bench/latency/watermark-reference.ts. */
  private static int[] table = new int[0];
  private static long watermarkOffset;

  private static long[] latencies = new long[1 << 16];
  private static int size;
  private static long[] timerLatencies = new long[1 << 12];
  private static int timerSize;
  static long count;
  static long sum;
  static long untimed;

  /** Prepares a run of `n` events at `rate` events/s (Infinity: unpaced). */
  static void reset(Params p, double rate, int n) {
    t0 = 0;
    periodNanos = Double.isInfinite(rate) ? 0 : 1e9 / rate;
    events = n;
    end = n;
    giveUpNanos = Double.isInfinite(rate) ? Long.MAX_VALUE : (long) (Math.max(2.0, n / rate) * 1e9);
    lastEmitNanos = 0;
    lastOutputNanos = 0;
    size = 0;
    timerSize = 0;
    count = 0;
    sum = 0;
    untimed = 0;
    buildTable(p, n);
  }

  static long dueNanos(long index) {
    return t0 + (long) (index * periodNanos);
  }

  /**
   * table[m]: the first event that brings the largest timestamp seen to base + m. A bounded out-of-orderness
   * watermark (max − bound − 1) ≥ T can exist from event table[T + bound + 1 − base] on.
   */
  private static void buildTable(Params p, int n) {
    int span = (int) ((long) n * 1000 / p.eventsPerSecond) + p.outOfOrdernessMs + 2;
    int[] t = new int[span];
    int filled = 0;
    for (int i = 0; i < n; i++) {
      long relative = Generators.eventTime(p.seed, i, 3, p.eventsPerSecond, p.outOfOrdernessMs) - Params.BASE_TIMESTAMP;
      while (filled <= relative) t[filled++] = i;
    }
    table = Arrays.copyOf(t, filled);
    watermarkOffset = p.outOfOrdernessMs + 1 - Params.BASE_TIMESTAMP;
  }

  /** The first event after which a watermark ≥ time could exist, or -1: only the end of the input releases it. */
  static int indexFor(long time) {
    long m = time + watermarkOffset;
    if (m < 0) return 0;
    return m < table.length ? table[(int) m] : -1;
  }

  /** One output (on the sink's task thread), made possible by event `reference` (-1: by the end of the input). */
  static void record(long reference, int hash, boolean timer) {
    long now = System.nanoTime();
    lastOutputNanos = now;
    count++;
    sum += hash & 0xFFFFFFFFL;
    if (reference < 0 || reference >= end) {
      untimed++;
      return;
    }
    long latency = now - dueNanos(reference);
    if (size == latencies.length) latencies = Arrays.copyOf(latencies, size * 2);
    latencies[size++] = latency;
    if (timer) {
      if (timerSize == timerLatencies.length) timerLatencies = Arrays.copyOf(timerLatencies, timerSize * 2);
      timerLatencies[timerSize++] = latency;
    }
  }

  static Map<String, Object> summary(double warmupFraction) {
    return summarise(latencies, size, warmupFraction);
  }

  static Map<String, Object> timerSummary(double warmupFraction) {
    return summarise(timerLatencies, timerSize, warmupFraction);
  }

  /** bench/latency/latency-recorder.ts summarise(), in milliseconds. */
  private static Map<String, Object> summarise(long[] values, int n, double warmupFraction) {
    int skip = (int) Math.floor(n * warmupFraction);
    long[] sorted = Arrays.copyOfRange(values, skip, n);
    Arrays.sort(sorted);
    int tenth = Math.max(1, n / 10);
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("outputs", n);
    s.put("measured", sorted.length);
    s.put("p50", quantile(sorted, 0.5));
    s.put("p99", quantile(sorted, 0.99));
    s.put("p999", quantile(sorted, 0.999));
    s.put("max", sorted.length > 0 ? sorted[sorted.length - 1] / 1e6 : Double.NaN);
    s.put("min", sorted.length > 0 ? sorted[0] / 1e6 : Double.NaN);
    s.put("p50Early", median(values, Math.min(tenth, Math.max(0, n - 1)), Math.min(2 * tenth, n)));
    s.put("p50Late", median(values, Math.max(0, n - tenth), n));
    return s;
  }

  private static double quantile(long[] sorted, double q) {
    if (sorted.length == 0) return Double.NaN;
    int rank = (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
    return sorted[rank] / 1e6;
  }

  private static double median(long[] values, int from, int to) {
    long[] part = Arrays.copyOfRange(values, from, Math.max(from, to));
    Arrays.sort(part);
    return quantile(part, 0.5);
  }
}
