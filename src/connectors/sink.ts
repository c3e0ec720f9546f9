// The sink contract: a writer per subtask, called synchronously per record and flushed asynchronously.

/** What a writer learns about where it runs. */
export interface SinkWriterContext {
  readonly subtaskIndex: number;
  readonly parallelism: number;
  readonly sinkName: string;
}

/**
 * Writes one subtask's records. `write` is synchronous (buffer there); `flush` and `close` may be asynchronous
 * and are awaited when the job ends.
 */
export interface SinkWriter<T> {
  write(value: T, timestamp: number | undefined): void;
  /** Receives the sink's input watermark (most sinks ignore it). */
  writeWatermark?(watermark: number): void;
  close?(): void | Promise<void>;
}

/** A destination for records. */
export interface Sink<T> {
  createWriter(context: SinkWriterContext): SinkWriter<T>;
}
