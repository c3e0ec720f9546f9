// The latency runs' source: event i is due at t0 + i / rate (System.nanoTime) and is emitted no earlier than that,
// as soon after as the task's mailbox lets it; a poll emits every event already due (at most 1,000), and when the
// next is not due yet the reader is unavailable until a timer thread completes its availability future at the due
// time. Splits, enumerator and their serializers are NumberSequenceSource's (one split at parallelism 1). Port of
// bench/latency/paced-source.ts; shares its pacing with the sink through LatencyRecording.
package dev.weir.bench;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource.NumberSequenceSplit;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;

public final class PacedSource
    implements Source<Event, NumberSequenceSplit, Collection<NumberSequenceSplit>>, ResultTypeQueryable<Event> {
  private static final long serialVersionUID = 1L;
  private static final int MAX_PER_POLL = 1000;

  private final NumberSequenceSource indices;
  private final Params params;

  public PacedSource(Params params) {
    this.params = params;
    this.indices = new NumberSequenceSource(0, params.events - 1L);
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  @Override
  public TypeInformation<Event> getProducedType() {
    return TypeInformation.of(Event.class);
  }

  @Override
  public SplitEnumerator<NumberSequenceSplit, Collection<NumberSequenceSplit>> createEnumerator(
      SplitEnumeratorContext<NumberSequenceSplit> context) {
    return indices.createEnumerator(context);
  }

  @Override
  public SplitEnumerator<NumberSequenceSplit, Collection<NumberSequenceSplit>> restoreEnumerator(
      SplitEnumeratorContext<NumberSequenceSplit> context, Collection<NumberSequenceSplit> checkpoint) {
    return indices.restoreEnumerator(context, checkpoint);
  }

  @Override
  public SimpleVersionedSerializer<NumberSequenceSplit> getSplitSerializer() {
    return indices.getSplitSerializer();
  }

  @Override
  public SimpleVersionedSerializer<Collection<NumberSequenceSplit>> getEnumeratorCheckpointSerializer() {
    return indices.getEnumeratorCheckpointSerializer();
  }

  @Override
  public SourceReader<Event, NumberSequenceSplit> createReader(SourceReaderContext context) {
    return new PacedReader(context, new Generators.EventGenerator(params));
  }

  static final class PacedReader implements SourceReader<Event, NumberSequenceSplit> {
    private final SourceReaderContext context;
    private final Generators.EventGenerator generator;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "paced-source-timer");
      t.setDaemon(true);
      return t;
    });
    private String splitId;
    private long next;
    private long to;
    private boolean noMoreSplits;
    private CompletableFuture<Void> available = new CompletableFuture<>();

    PacedReader(SourceReaderContext context, Generators.EventGenerator generator) {
      this.context = context;
      this.generator = generator;
    }

    @Override
    public void start() {
      context.sendSplitRequest();
    }

    @Override
    public InputStatus pollNext(ReaderOutput<Event> output) {
      if (splitId == null) {
        if (noMoreSplits) return InputStatus.END_OF_INPUT;
        if (available.isDone()) available = new CompletableFuture<>();
        return InputStatus.NOTHING_AVAILABLE;
      }
      if (LatencyRecording.t0 == 0) LatencyRecording.t0 = System.nanoTime();
      long now = System.nanoTime();
      if (next <= to && now - LatencyRecording.dueNanos(next) > LatencyRecording.giveUpNanos) {
        // Far behind the due times: end the run with the events emitted so far.
        LatencyRecording.end = (int) next;
        to = next - 1;
      }
      long last = Math.min(to, next + MAX_PER_POLL - 1);
      while (next <= last) {
        long due = LatencyRecording.dueNanos(next);
        if (due > now) {
          now = System.nanoTime();
          if (due > now) break;
        }
        Event e = generator.map(next);
        next++;
        output.collect(e);
      }
      if (next > to) {
        LatencyRecording.lastEmitNanos = System.nanoTime();
        splitId = null;
        context.sendSplitRequest();
        if (noMoreSplits) return InputStatus.END_OF_INPUT;
        available = new CompletableFuture<>();
        return InputStatus.NOTHING_AVAILABLE;
      }
      if (next > last) return InputStatus.MORE_AVAILABLE;
      long wait = LatencyRecording.dueNanos(next) - System.nanoTime();
      if (wait <= 0) return InputStatus.MORE_AVAILABLE;
      CompletableFuture<Void> future = new CompletableFuture<>();
      available = future;
      timer.schedule(() -> future.complete(null), wait, TimeUnit.NANOSECONDS);
      return InputStatus.NOTHING_AVAILABLE;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
      return available;
    }

    @Override
    public void addSplits(List<NumberSequenceSplit> splits) {
      NumberSequenceSplit split = splits.get(0);
      splitId = split.splitId();
      next = split.from();
      to = split.to();
      available.complete(null);
    }

    @Override
    public void notifyNoMoreSplits() {
      noMoreSplits = true;
      available.complete(null);
    }

    @Override
    public List<NumberSequenceSplit> snapshotState(long checkpointId) {
      return splitId == null ? List.of() : List.of(new NumberSequenceSplit(splitId, next, to));
    }

    @Override
    public void close() {
      timer.shutdownNow();
    }
  }
}
