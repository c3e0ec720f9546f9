// One record of the Kafka comparison's output: a user's running order count and amount after one order.
package dev.weir.bench;

/** A Flink POJO; toJson() writes the same bytes as JSON.stringify of the Weir job's output object. */
public final class KafkaUserTotal {
  public long id;
  public String user;
  public long count;
  public long total;

  public KafkaUserTotal() {}

  public KafkaUserTotal(long id, String user, long count, long total) {
    this.id = id;
    this.user = user;
    this.count = count;
    this.total = total;
  }

  /** Users are "u" + digits, so no character needs escaping. */
  public String toJson() {
    return "{\"id\":" + id + ",\"user\":\"" + user + "\",\"count\":" + count + ",\"total\":" + total + "}";
  }
}
