// PrintSink: writes records to standard output (or error), as Flink's print().
import { format } from 'node:util';
import type { Sink, SinkWriter, SinkWriterContext } from './sink.ts';

/**
 * Prints each record on its own line. With parallelism above 1 each line is prefixed with the subtask
 * (`2> ...`), as Flink does; `prefix` adds an identifier in front. Lines are buffered and written in blocks.
 */
export class PrintSink<T> implements Sink<T> {
  constructor(
    private readonly prefix?: string,
    private readonly stream: NodeJS.WritableStream = process.stdout,
  ) {}

  createWriter(context: SinkWriterContext): SinkWriter<T> {
    const tag =
      (this.prefix !== undefined ? `${this.prefix}` : '') +
      (context.parallelism > 1 ? `${this.prefix !== undefined ? ':' : ''}${context.subtaskIndex + 1}> ` : this.prefix !== undefined ? '> ' : '');
    let buffer = '';
    const stream = this.stream;
    const flush = (): void => {
      if (buffer.length > 0) stream.write(buffer);
      buffer = '';
    };
    return {
      write(value) {
        buffer += tag + (typeof value === 'string' ? value : format('%o', value).replace(/\s*\n\s*/g, ' ')) + '\n';
        if (buffer.length > 65_536) flush();
      },
      close: flush,
    };
  }
}
