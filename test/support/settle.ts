// Runs a program in its own process and tells how it ended: finished, failed with a stall error, or anything else.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));

/** A program that neither exits nor fails by then is reported as hung, naming it. */
export const RUN_TIMEOUT_MS = 120_000;

/** How a program ended: finished (exit 0), failed with a JobStalledError, or anything else (exit 13 included). */
export type Outcome = 'finished' | 'stalled' | `exit ${number | null}: ${string}`;

/**
 * Runs a program in its own process, since an unsettled `await env.execute()` is only visible when the whole event
 * loop empties: Node then exits with code 13 and no error. Resolves with how it ended.
 */
export function settle(program: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', program, ...args], {
      cwd: repo,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const hung = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${program} neither exited nor failed within ${RUN_TIMEOUT_MS} ms: ${output}`));
    }, RUN_TIMEOUT_MS);
    proc.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    proc.on('error', reject);
    proc.on('exit', (code) => {
      clearTimeout(hung);
      if (code === 0) resolve('finished');
      else if (code !== 13 && /JobStalledError/.test(output)) resolve('stalled');
      else resolve(`exit ${code}: ${output.slice(-2_000)}`);
    });
  });
}
