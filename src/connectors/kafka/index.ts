// weir/kafka: the Kafka connectors. A separate entry point, so `import 'weir'` never loads a Kafka client.

// Source
export { KafkaSource, KafkaSourceBuilder } from './kafka-source.ts';
export { OffsetsInitializer } from './offsets-initializer.ts';
export {
  Deserializers,
  type DeserializationSchema,
  type KafkaConsumerRecord,
  type KafkaRecordDeserializationSchema,
} from './kafka-record-deserializer.ts';
export type { MalformedKafkaRecord } from './malformed-kafka-record.ts';
export { KafkaDeserializationError } from './kafka-source-reader.ts';

// Sink
export { KafkaSink, KafkaSinkBuilder } from './kafka-sink.ts';
export { DeliveryGuarantee } from './delivery-guarantee.ts';
export type { KafkaProducerRecord, KafkaRecordSerializationSchema } from './kafka-record-serializer.ts';

// Client
export { KafkaError, type KafkaProperties } from './kafka-client.ts';
