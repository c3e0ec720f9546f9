// The workload parameters, mirroring defaultParams() in bench/workloads/params.ts.
package dev.weir.bench;

import java.io.Serializable;

/** Immutable and serialisable: generator functions carry it into the source task. */
public final class Params implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final long BASE_TIMESTAMP = 1_700_000_000_000L;

  public final int events;
  public final int seed;
  public final int parallelism;

  // Generic stream (workloads 1, 2, 3, 6, 7).
  public final int keys;
  public final int eventsPerSecond = 100_000;
  public final int outOfOrdernessMs = 200;

  // Bid stream (workloads 4, 5).
  public final int auctions = 10_000;
  public final int hotAuctions = 100;
  public final int hotAuctionPercent = 50;
  public final int bidders = 100_000;
  public final int hotBidders = 1_000;
  public final int hotBidderPercent = 10;
  public final int bidsPerSecond = 10_000;
  public final int bidOutOfOrdernessMs = 200;

  // Nexmark stream (workload q8) and the windows of q7 and q8.
  public final int activePersons = 1_000;
  public final int activeAuctions = 1_000;
  public final int nexmarkEventsPerSecond = 10_000;
  public final int nexmarkOutOfOrdernessMs = 200;
  public final long nexmarkWindowMs = 10_000;

  public final int multiplier = 3;
  public final int offset = 1;
  public final int dropModulus = 4;
  public final long tumblingSizeMs = 1_000;
  public final long slidingSizeMs = 10_000;
  public final long slidingSlideMs = 2_000;
  public final long sessionGapMs = 10_000;
  public final int probeBelow = 10;
  public final int largeAtLeast = 500;
  public final int drainAtLeast = 900;
  public final long withinMs = 2_000;
  public final int batchSize = 8;
  public final long batchTimeoutMs = 1_000;

  public Params(int events, int seed, int parallelism) {
    this(events, seed, parallelism, 10_000);
  }

  public Params(int events, int seed, int parallelism, int keys) {
    this.events = events;
    this.keys = keys;
    this.seed = seed;
    this.parallelism = parallelism;
  }
}
