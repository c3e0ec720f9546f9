// runChildProcess: runs a TypeScript test child to its end, with a deadline, for tests that kill jobs.
import { spawn } from 'node:child_process';

/** How a child ended: its exit code or signal and everything it printed. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ChildRunOptions {
  /**
   * A child that has not exited by then is hung: it is SIGKILLed and the run fails with what it printed, so a
   * stalled job fails its test instead of holding the test process open.
   */
  readonly timeoutMs: number;
  /** Called with everything printed to stdout so far; returning a delay SIGKILLs the child that long after. */
  readonly killAfter?: (stdout: string) => number | undefined;
  /** Names the run in a failure message. */
  readonly what: string;
  /** Node options for the child, before the script (as `--disallow-code-generation-from-strings`). */
  readonly nodeOptions?: readonly string[];
}

/** Runs `script` with tsx under this Node; resolves when it exits, whatever its code or signal. */
export function runChildProcess(
  script: string,
  args: readonly string[],
  options: ChildRunOptions,
): Promise<ChildExit> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [...(options.nodeOptions ?? []), '--import', 'tsx', script, ...args],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    let killTimer: NodeJS.Timeout | undefined;
    const hung = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(
        new Error(
          `${options.what} hung: still running after ${options.timeoutMs} ms; stdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, options.timeoutMs);
    proc.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (options.killAfter !== undefined && killTimer === undefined) {
        const delay = options.killAfter(stdout);
        if (delay !== undefined) killTimer = setTimeout(() => proc.kill('SIGKILL'), delay);
      }
    });
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('error', (error) => {
      clearTimeout(hung);
      reject(error);
    });
    proc.on('exit', (code, signal) => {
      clearTimeout(hung);
      if (killTimer !== undefined) clearTimeout(killTimer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** mulberry32: a tiny seeded generator, so a kill schedule is the same on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
