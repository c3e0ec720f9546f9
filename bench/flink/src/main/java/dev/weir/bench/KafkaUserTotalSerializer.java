// Writes a KafkaUserTotal as a Kafka record: key = the user, value = its JSON, timestamp = the input record's.
package dev.weir.bench;

import java.nio.charset.StandardCharsets;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

public final class KafkaUserTotalSerializer implements KafkaRecordSerializationSchema<KafkaUserTotal> {
  private static final long serialVersionUID = 1L;

  private final String topic;

  public KafkaUserTotalSerializer(String topic) {
    this.topic = topic;
  }

  @Override
  public ProducerRecord<byte[], byte[]> serialize(KafkaUserTotal total, KafkaSinkContext context, Long timestamp) {
    return new ProducerRecord<>(topic, null, timestamp,
        total.user.getBytes(StandardCharsets.UTF_8), total.toJson().getBytes(StandardCharsets.UTF_8));
  }
}
