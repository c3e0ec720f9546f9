// The sink side of every Flink workload: hashes each output record into two accumulators (count, sum),
// which the job result adds up across parallel subtasks, so the checksum is order- and parallelism-free.
package dev.weir.bench;

import java.io.Serializable;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Emits nothing; a DiscardingSink after it makes the operator part of the job graph. With checkpointing on it also
 * counts the checkpoints completed while it ran (CHECKPOINTS).
 */
public final class ChecksumCollector<T> extends ProcessFunction<T, Void> implements CheckpointListener {
  private static final long serialVersionUID = 1L;

  public static final String COUNT = "count";
  public static final String SUM = "sum";
  public static final String CHECKPOINTS = "checkpoints";

  /** One record's murmur3 hash (bench/workloads/checksum.ts). */
  public interface RecordHasher<T> extends Serializable {
    int hash(T record);
  }

  private final RecordHasher<T> hasher;
  private transient LongCounter count;
  private transient LongCounter sum;
  private transient LongCounter checkpoints;

  public ChecksumCollector(RecordHasher<T> hasher) {
    this.hasher = hasher;
  }

  @Override
  public void open(OpenContext openContext) {
    count = new LongCounter();
    sum = new LongCounter();
    getRuntimeContext().addAccumulator(COUNT, count);
    getRuntimeContext().addAccumulator(SUM, sum);
    checkpoints = new LongCounter();
    getRuntimeContext().addAccumulator(CHECKPOINTS, checkpoints);
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    checkpoints.add(1L);
  }

  @Override
  public void processElement(T record, Context ctx, Collector<Void> out) {
    count.add(1L);
    // Unsigned 32-bit hash into a long sum; the driver keeps the low 32 bits (sum modulo 2^32).
    sum.add(hasher.hash(record) & 0xFFFFFFFFL);
  }
}
