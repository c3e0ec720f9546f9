// Exactly-once with a source that finishes early: seeded kills during alignment and the final checkpoint, restarts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { runChildProcess, seededRandom } from '../support/child-run.ts';
import { committedIds } from '../support/committed-lines.ts';

const COUNT = 20_000;
const RATE = 5_000;
const KILLS = 20;
const SEED = 20_261_201;
/** A run that neither finishes nor reaches its kill moment by then is hung. */
const RUN_TIMEOUT_MS = 60_000;
const child = fileURLToPath(new URL('./union-child.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'weir-union-crash-'));
after(() => rmSync(root, { recursive: true, force: true }));

interface Run {
  readonly killed: boolean;
  readonly restoredFrom: number;
  readonly fileFinished: boolean;
}

/** Runs the child with a kill plan; resolves with how it ended. A hung run fails, naming what it printed. */
async function runChild(args: string[], plan: string): Promise<Run> {
  const exit = await runChildProcess(child, [...args, plan], {
    what: `union child with plan '${plan}'`,
    timeoutMs: RUN_TIMEOUT_MS,
  });
  const running = /^RUNNING (\d+) (file-finished|file-running)$/m.exec(exit.stdout);
  if (running === null)
    throw new Error(`the child did not start (code ${exit.code}, signal ${exit.signal}): ${exit.stderr}`);
  const run = { restoredFrom: Number(running[1]), fileFinished: running[2] === 'file-finished' };
  if (exit.signal === 'SIGKILL') return { killed: true, ...run };
  if (exit.code === 0 && exit.stdout.includes('DONE')) return { killed: false, ...run };
  throw new Error(`union child with plan '${plan}' exited with ${exit.code}: ${exit.stderr}`);
}

describe('crash test: a generator unioned with a source that finishes at once', () => {
  it(
    `commits all ${COUNT + 1} records exactly once after ${KILLS} seeded kills at observed moments`,
    { timeout: 900_000 },
    async () => {
      const out = join(root, 'out');
      const args = [out, join(root, 'checkpoints'), join(root, 'in'), String(COUNT), String(RATE)];
      const next = seededRandom(SEED);
      // Kills 1-17 land mid-checkpoint: k records after the c-th checkpoint of the run was triggered, so during
      // barrier injection, alignment at the keyed exchange, or the write. The last three land at the final
      // checkpoint: when it is triggered, and when it is durable but not yet committed (twice: the run after a
      // kill there restores from a checkpoint in which every source had finished).
      const plans: string[] = [];
      for (let i = 0; i < KILLS - 3; i++)
        plans.push(`mid:${1 + Math.floor(next() * 3)}:${Math.floor(next() * 200)}`);
      plans.push('final-triggered', 'final-completed', 'final-completed');
      const runs: Run[] = [];
      for (const plan of plans) {
        const run = await runChild(args, plan);
        runs.push(run);
        assert.ok(run.killed, `the run with plan '${plan}' finished before its kill moment`);
      }
      const last = await runChild(args, 'none');
      runs.push(last);
      assert.equal(last.killed, false);
      const expected = [-1];
      for (let i = 0; i < COUNT; i++) expected.push(i);
      const actual = committedIds(out);
      assert.equal(
        actual.length,
        expected.length,
        `${actual.length} committed records, expected ${expected.length}`,
      );
      assert.deepEqual(actual, expected);
      assert.ok(
        runs.filter((r) => r.fileFinished).length >= KILLS / 2,
        'most restarts resumed from a checkpoint taken after the file source finished',
      );
      const final = runs.slice(KILLS - 2);
      assert.ok(
        final.every((r) => r.fileFinished && r.restoredFrom > 0),
        'the runs after the final-checkpoint kills restored from checkpoints with the file source finished',
      );
    },
  );
});
