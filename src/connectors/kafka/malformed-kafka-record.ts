// MalformedKafkaRecord: what a Kafka source sends to its malformed-records side output instead of failing.

/**
 * A record whose deserialization threw, as sent to the side output set with
 * `KafkaSourceBuilder.setMalformedRecords(tag)`. Plain data, so it can go to a dead-letter topic or file.
 *
 * @example
 * const bad = new OutputTag<MalformedKafkaRecord>('bad-records');
 * const events = env.fromSource(source, strategy, 'events');
 * events.getSideOutput(bad).sinkTo(deadLetters);
 */
export interface MalformedKafkaRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number | undefined;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  /** The deserializer's error message. */
  readonly error: string;
}
