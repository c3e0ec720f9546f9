// Runs the crash job's child process once: SIGKILLed a while after it reports running, or by its own kill plan.
import { fileURLToPath } from 'node:url';
import { runChildProcess } from '../support/child-run.ts';

const child = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
/** A run that neither finishes nor is killed by then is hung (a stalled restore), and fails the test. */
const RUN_TIMEOUT_MS = 180_000;

/**
 * Runs the child once. With `killAfterMs`, SIGKILLs it that long after it reports running (it then resumes from
 * its latest checkpoint on the next run). Resolves with whether it finished the job. `runningLines` is how many
 * RUNNING lines mean running: in worker mode every worker prints one too when it has loaded the job module.
 */
export async function runChild(
  args: string[],
  killAfterMs: number | undefined,
  runningLines = 1,
): Promise<{ finished: boolean; stderr: string }> {
  const exit = await runChildProcess(child, args, {
    what: `crash child (${killAfterMs === undefined ? 'not killed' : `killed ${killAfterMs} ms after start`})`,
    timeoutMs: RUN_TIMEOUT_MS,
    killAfter: (stdout) =>
      killAfterMs !== undefined && stdout.split('RUNNING').length > runningLines ? killAfterMs : undefined,
  });
  if (exit.signal === 'SIGKILL') return { finished: false, stderr: exit.stderr };
  if (exit.code === 0 && exit.stdout.includes('DONE')) return { finished: true, stderr: exit.stderr };
  throw new Error(`crash child exited with ${exit.code ?? exit.signal}: ${exit.stderr}`);
}

/** How a run with a kill plan ended: the moment it killed itself at (undefined: it finished), and its restore. */
export interface PlannedRun {
  readonly killed: string | undefined;
  readonly restoredFrom: number;
}

/**
 * Runs the child with a kill plan as its last arguments (see kill-switch.ts): it kills itself at a moment of the
 * exactly-once protocol, so where it dies depends on the job's progress, not on the machine's speed.
 */
export async function runPlannedChild(args: string[]): Promise<PlannedRun> {
  const exit = await runChildProcess(child, args, {
    what: `crash child with plan ${args.at(-2)}`,
    timeoutMs: RUN_TIMEOUT_MS,
  });
  const restoredFrom = Number(/RUNNING (\d+)/.exec(exit.stdout)?.[1] ?? -1);
  const killed = /KILL (\S+)/.exec(exit.stdout)?.[1];
  if (exit.signal === 'SIGKILL' && killed !== undefined) return { killed, restoredFrom };
  if (exit.code === 0 && exit.stdout.includes('DONE')) return { killed: undefined, restoredFrom };
  throw new Error(`crash child exited with ${exit.code ?? exit.signal}: ${exit.stdout}\n${exit.stderr}`);
}
