// A Nexmark event, flat (bench/workloads/generator.ts's NexmarkEvent): kind says which fields mean something.
package dev.weir.bench;

/** A Flink POJO (public fields, no-arg constructor), so Flink serialises it without Kryo. */
public class NexmarkEvent {
  public static final int PERSON = 0;
  public static final int AUCTION = 1;
  public static final int BID = 2;

  public int kind;
  /** A person's or an auction's id; a bid's event index. */
  public int id;
  public String name;
  public int seller;
  public int auction;
  public int bidder;
  public int price;
  public long ts;

  public NexmarkEvent() {}
}
