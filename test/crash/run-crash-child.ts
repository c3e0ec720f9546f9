// Runs the crash job's child process once, optionally SIGKILLed a while after it reports running.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const child = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

/** mulberry32: a tiny seeded generator, so the kill schedule is the same on every run. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Runs the child once. With `killAfterMs`, SIGKILLs it that long after it reports running (it then resumes from
 * its latest checkpoint on the next run). Resolves with whether it finished the job. `runningLines` is how many
 * RUNNING lines mean running: in worker mode every worker prints one too when it has loaded the job module.
 */
export function runChild(
  args: string[],
  killAfterMs: number | undefined,
  runningLines = 1,
): Promise<{ finished: boolean; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    proc.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (killAfterMs !== undefined && timer === undefined && stdout.split('RUNNING').length > runningLines) {
        timer = setTimeout(() => proc.kill('SIGKILL'), killAfterMs);
      }
    });
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      if (signal === 'SIGKILL') resolve({ finished: false, stderr });
      else if (code === 0 && stdout.includes('DONE')) resolve({ finished: true, stderr });
      else reject(new Error(`crash child exited with ${code}: ${stderr}`));
    });
  });
}
