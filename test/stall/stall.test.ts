// No silent stalls: a job that can make no progress fails with an error naming what waits, never exits with code 13.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { committedIds } from '../support/committed-lines.ts';

const stalledJob = fileURLToPath(new URL('./stalled-job.ts', import.meta.url));
const unionJob = fileURLToPath(new URL('./union-job.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'weir-stall-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Runs a job program in its own process (a stall is only visible when the whole event loop empties). */
function run(job: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', job, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('error', reject);
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('stalled jobs', () => {
  it('a generator unioned with a file that finishes at once keeps checkpointing and commits all 20,001 records once', async () => {
    const dir = join(root, 'union');
    const { code, stdout, stderr } = await run(unionJob, [dir]);
    assert.equal(code, 0, `exit code ${code}; stderr: ${stderr}`);
    const checkpoints = Number(/^DONE (\d+)$/m.exec(stdout)?.[1]);
    assert.ok(checkpoints >= 2, `only ${checkpoints} checkpoint(s) completed`);
    const expected = [-1];
    for (let i = 0; i < 20_000; i++) expected.push(i);
    assert.deepEqual(committedIds(join(dir, 'out')), expected);
  });

  it('execute() rejects with a JobStalledError naming each subtask and what it waits for', async () => {
    const { code, stdout, stderr } = await run(stalledJob, []);
    assert.equal(code, 1, `exit code ${code}; stderr: ${stderr}`);
    assert.equal(
      stdout.trim(),
      "FAILED JobStalledError: Job 'stall' has nothing left to run but is not finished: 'stuck' (1/1) waits for its reader's pollNext() to settle; 'Print to Std. Out' (1/1) waits for records or end of input from channel 1 ('stuck' 1/1)",
    );
  });

  it('with checkpointing, the stall error also names the checkpoints still in flight', async () => {
    const { code, stdout, stderr } = await run(stalledJob, ['--checkpointing', join(root, 'chk')]);
    assert.equal(code, 1, `exit code ${code}; stderr: ${stderr}`);
    assert.equal(
      stdout.trim(),
      "FAILED JobStalledError: Job 'stall' has nothing left to run but is not finished: 'stuck' (1/1) waits for its reader's pollNext() to settle; 'Print to Std. Out' (1/1) waits for records or end of input from channel 1 ('stuck' 1/1); checkpoint 1 waits for acknowledgements from '0-stuck' subtask 0, '1-Print to Std. Out' subtask 0",
    );
  });
});
