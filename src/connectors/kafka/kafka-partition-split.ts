// KafkaPartitionSplit: a topic partition as a source split, and which source subtask owns it.

/** A partition of a topic: the unit of work of a Kafka source subtask (Flink's KafkaPartitionSplit). */
export interface KafkaPartitionSplit {
  readonly topic: string;
  readonly partition: number;
}

/** The split's id, as Flink names it: `topic-partition`. */
export function splitId(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/** Java's `String.hashCode`: the owner of a partition must be the same function of its topic as in Flink. */
export function javaStringHashCode(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  return hash;
}

/**
 * Flink's `KafkaSourceEnumerator.getSplitOwner`: the partitions of a topic go round-robin over the subtasks,
 * starting at a subtask chosen by the topic's hash, so the partitions of several topics spread evenly. Each
 * subtask computes this for itself; no coordinator is needed, and after a rescale every partition has exactly
 * one owner again.
 */
export function splitOwner(topic: string, partition: number, parallelism: number): number {
  const startIndex = (Math.imul(javaStringHashCode(topic), 31) & 0x7fffffff) % parallelism;
  return (startIndex + partition) % parallelism;
}
