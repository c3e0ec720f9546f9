// syncDirectory: makes the renames inside a directory durable (fsync of the directory itself).
import { closeSync, fsyncSync, openSync } from 'node:fs';

/** fsyncs `dir`, so a file created or renamed in it survives a machine crash under its new name. */
export function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
