// Stop-with-savepoint on SIGTERM, in a child process run with savepointOnSigterm; the savepoint resumes exactly.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { expectedCounts, readPosition, resume } from './counting-job.ts';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'weir-sigterm-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('stop-with-savepoint', () => {
  it('on SIGTERM, a job run with savepointOnSigterm stops with a savepoint and the process exits normally', async () => {
    const child = fileURLToPath(new URL('./sigterm-child.ts', import.meta.url));
    const proc = spawn(process.execPath, ['--import', 'tsx', child, join(dir, 'sigterm')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) =>
      proc.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('RUNNING\n')) resolve();
      }),
    );
    proc.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
    const path = /STOPPED (\S+)\n/.exec(stdout)?.[1];
    assert.ok(path !== undefined, stdout);
    assert.match(stderr, /weir: SIGTERM: stopping job 'counting' with a savepoint under /);
    assert.match(stderr, new RegExp(`weir: job 'counting' stopped with savepoint ${path}`));
    const position = readPosition(path);
    assert.ok(position >= 1_000, `position ${position}`);
    assert.deepEqual(await resume(path, position + 500), expectedCounts(position + 500));
  });
});
