// Heap measurement from inside a running job: the source calls hit() at two event indices and the
// difference of the heap after a full GC is the state built in between (plus in-flight records).
package dev.weir.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Statics are shared across tasks because the MiniCluster runs every task in this JVM: the benchmark relies
 * on that, and a real cluster would need accumulators instead.
 */
public final class MemoryProbe {
  private MemoryProbe() {}

  public static volatile long baselineIndex = -1;
  public static volatile long measureIndex = -1;
  public static volatile long baselineHeap = -1;
  public static volatile long measureHeap = -1;

  public static void arm(long baseline, long measure) {
    baselineIndex = baseline;
    measureIndex = measure;
    baselineHeap = -1;
    measureHeap = -1;
  }

  public static void disarm() {
    baselineIndex = -1;
    measureIndex = -1;
  }

  public static void maybeHit(long index) {
    if (index == baselineIndex) baselineHeap = usedAfterGc();
    else if (index == measureIndex) measureHeap = usedAfterGc();
  }

  /**
   * Heap used after full GCs, repeated until two readings agree within 256 KiB (at most 10 rounds, 100 ms
   * apart): the previous job's MiniCluster shuts down asynchronously and its garbage keeps arriving.
   */
  public static long usedAfterGc() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long previous = Long.MAX_VALUE;
    long used = 0;
    for (int round = 0; round < 10; round++) {
      System.gc();
      used = memory.getHeapMemoryUsage().getUsed();
      if (Math.abs(previous - used) < 256 * 1024) break;
      previous = used;
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return used;
  }
}
