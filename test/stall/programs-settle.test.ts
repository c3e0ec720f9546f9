// Every example program and crash-test job shape, run as a process, finishes or fails with a stall error: none exits 13.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { RUN_TIMEOUT_MS, settle } from '../support/settle.ts';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'weir-settle-'));
after(() => rmSync(root, { recursive: true, force: true }));
/** The examples' entry points, found on disk so that a new example is covered without listing it here. */
const examples = readdirSync(join(repo, 'examples'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(repo, 'examples', d.name, 'main.ts')))
  .map((d) => d.name)
  .sort();

describe('no program exits with an unsettled promise', () => {
  it('finds the examples', () => {
    for (const name of ['ad-attribution', 'clickstream', 'fault-tolerance', 'kafka-orders', 'side-outputs'])
      assert.ok(examples.includes(name), `examples/${name}/main.ts`);
  });

  for (const name of examples) {
    // The Kafka example needs a broker: `npm run test:kafka` runs it (test/kafka/kafka-example.test.ts).
    if (name === 'kafka-orders') continue;
    it(`examples/${name}/main.ts finishes`, { timeout: RUN_TIMEOUT_MS + 10_000 }, async () => {
      const args = name === 'fault-tolerance' ? [join(root, name)] : [];
      assert.equal(await settle(join(repo, 'examples', name, 'main.ts'), args), 'finished');
    });
  }

  it('the crash job (keyed state, windows, timers, CEP, LMDB, two-phase commit) finishes', async () => {
    const child = fileURLToPath(new URL('../crash/crash-child.ts', import.meta.url));
    const dir = join(root, 'crash');
    const args = [join(dir, 'out'), join(dir, 'chk'), join(dir, 'state'), '4000', '0', 'lmdb', 'cep', '1'];
    assert.equal(await settle(child, args), 'finished');
  });

  it('the union crash job (a generator with a source that finishes at once) finishes', async () => {
    const child = fileURLToPath(new URL('../crash/union-child.ts', import.meta.url));
    const dir = join(root, 'union');
    const args = [join(dir, 'out'), join(dir, 'chk'), join(dir, 'in'), '4000', '40000', 'none'];
    assert.equal(await settle(child, args), 'finished');
  });

  it('a job whose source never settles fails with a JobStalledError instead of exiting 13', async () => {
    assert.equal(await settle(fileURLToPath(new URL('./stalled-job.ts', import.meta.url))), 'stalled');
  });
});
