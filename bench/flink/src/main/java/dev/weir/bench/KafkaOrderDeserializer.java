// Reads a KafkaOrder from a record's JSON value with Jackson (Flink's own shaded copy), as a Flink user would.
package dev.weir.bench;

import java.io.IOException;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

public final class KafkaOrderDeserializer implements DeserializationSchema<KafkaOrder> {
  private static final long serialVersionUID = 1L;

  // ObjectMapper is not serialisable: made on the task side, once per deserializer instance.
  private transient ObjectMapper mapper;

  @Override
  public void open(InitializationContext context) {
    mapper = new ObjectMapper();
  }

  @Override
  public KafkaOrder deserialize(byte[] message) throws IOException {
    return mapper.readValue(message, KafkaOrder.class);
  }

  @Override
  public boolean isEndOfStream(KafkaOrder next) {
    return false;
  }

  @Override
  public TypeInformation<KafkaOrder> getProducedType() {
    return TypeInformation.of(KafkaOrder.class);
  }
}
