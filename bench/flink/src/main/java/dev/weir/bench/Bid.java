// Nexmark's Bid with the fields q5 and q11 read (bench/workloads/generator.ts's Bid).
package dev.weir.bench;

/** A Flink POJO (public fields, no-arg constructor), so Flink serialises it without Kryo. */
public class Bid {
  public long id;
  public int auction;
  public int bidder;
  public int price;
  public long ts;

  public Bid() {}
}
