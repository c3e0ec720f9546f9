// The sink side of every Flink workload: hashes each output record into two accumulators (count, sum),
// which the job result adds up across parallel subtasks, so the checksum is order- and parallelism-free.
package dev.weir.bench;

import java.io.Serializable;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/** Emits nothing; a DiscardingSink after it makes the operator part of the job graph. */
public final class ChecksumCollector<T> extends ProcessFunction<T, Void> {
  private static final long serialVersionUID = 1L;

  public static final String COUNT = "count";
  public static final String SUM = "sum";

  /** One record's murmur3 hash (bench/workloads/checksum.ts). */
  public interface RecordHasher<T> extends Serializable {
    int hash(T record);
  }

  private final RecordHasher<T> hasher;
  private transient LongCounter count;
  private transient LongCounter sum;

  public ChecksumCollector(RecordHasher<T> hasher) {
    this.hasher = hasher;
  }

  @Override
  public void open(OpenContext openContext) {
    count = new LongCounter();
    sum = new LongCounter();
    getRuntimeContext().addAccumulator(COUNT, count);
    getRuntimeContext().addAccumulator(SUM, sum);
  }

  @Override
  public void processElement(T record, Context ctx, Collector<Void> out) {
    count.add(1L);
    // Unsigned 32-bit hash into a long sum; the driver keeps the low 32 bits (sum modulo 2^32).
    sum.add(hasher.hash(record) & 0xFFFFFFFFL);
  }
}
