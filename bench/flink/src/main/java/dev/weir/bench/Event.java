// The generic keyed event of workloads 1, 2, 3, 6 and 7 (bench/workloads/generator.ts's Event).
package dev.weir.bench;

/** A Flink POJO (public fields, no-arg constructor), so Flink serialises it without Kryo. */
public class Event {
  public long id;
  public int key;
  public int value;
  public long ts;

  public Event() {}
}
