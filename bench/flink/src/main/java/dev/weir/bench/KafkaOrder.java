// One record of the Kafka comparison's input topic: {"id":…,"user":"u…","amount":…} (bench/kafka/kafka-records.ts).
package dev.weir.bench;

/** A Flink POJO (public fields, no-argument constructor), so Jackson reads it and Flink serialises it without Kryo. */
public final class KafkaOrder {
  public long id;
  public String user;
  public long amount;

  public KafkaOrder() {}
}
