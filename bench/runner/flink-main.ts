// Starts one of bench/flink's main classes in a JVM on the built classpath and collects the JSON lines it prints,
// one per measurement, handing each to the caller as it arrives (for the progress log).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const FLINK_DIR = fileURLToPath(new URL('../flink/', import.meta.url));

/**
 * Runs `dev.weir.bench.<mainClass>` with `args` and resolves with every JSON line it printed (other lines are Flink's
 * own output and are skipped); a non-zero exit rejects with the end of its standard error.
 */
export function runFlinkMain<Line>(
  mainClass: string,
  args: readonly string[],
  onLine: (line: Line) => void,
): Promise<Line[]> {
  const classpath = `${FLINK_DIR}target/classes:${readFileSync(`${FLINK_DIR}target/classpath.txt`, 'utf8').trim()}`;
  return new Promise((resolve, reject) => {
    const child = spawn('java', ['-cp', classpath, `dev.weir.bench.${mainClass}`, ...args], {
      cwd: FLINK_DIR,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: Line[] = [];
    let pending = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const text = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        if (!text.startsWith('{')) continue;
        const line = JSON.parse(text) as Line;
        lines.push(line);
        onLine(line);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-20_000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0)
        reject(new Error(`Flink exited with ${code}:\n${stderr.split('\n').slice(-30).join('\n')}`));
      else resolve(lines);
    });
  });
}
