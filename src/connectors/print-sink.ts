// PrintSink: writes records to standard output (or error), as Flink's print().
import { inspect } from 'node:util';
import type { Sink, SinkWriter, SinkWriterContext } from '../core/sink.ts';

const INSPECT = { breakLength: Infinity, depth: 6, compact: true } as const;

/**
 * Prints each record on its own line. With parallelism above 1 each line is prefixed with the subtask
 * (`2> ...`), as Flink does; `prefix` adds an identifier in front. Lines are buffered and written in blocks.
 */
export class PrintSink<T> implements Sink<T> {
  constructor(
    private readonly prefix?: string,
    private readonly stream: { write(text: string): unknown } = process.stdout,
  ) {}

  createWriter(context: SinkWriterContext): SinkWriter<T> {
    const tag =
      (this.prefix !== undefined ? `${this.prefix}` : '') +
      (context.parallelism > 1
        ? `${this.prefix !== undefined ? ':' : ''}${context.subtaskIndex + 1}> `
        : this.prefix !== undefined
          ? '> '
          : '');
    let buffer = '';
    const stream = this.stream;
    const flush = (): void => {
      if (buffer.length > 0) stream.write(buffer);
      buffer = '';
    };
    return {
      write(value) {
        buffer += tag + (typeof value === 'string' ? value : inspect(value, INSPECT)) + '\n';
        if (buffer.length > 65_536) flush();
      },
      // Flushing on watermarks keeps output timely on slow or unbounded streams without a write per record.
      writeWatermark: flush,
      close: flush,
    };
  }
}
