// Cluster mode's options checked before any broker is contacted: standby replicas need a count and local stores.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../api/stream-execution-environment.ts';
import { ConfigurationError } from '../../core/errors.ts';
import { LmdbStateBackend } from '../../state/lmdb/lmdb-state-backend.ts';

const root = mkdtempSync(join(tmpdir(), 'weir-cluster-job-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Runs a job with these cluster options; nothing listens on the address, so only a check made first can fail it. */
function run(standbyReplicas: number, lmdb: boolean): Promise<unknown> {
  const env = StreamExecutionEnvironment.create({
    cluster: { bootstrapServers: '127.0.0.1:9', jobId: 'standbys', standbyReplicas },
  });
  if (lmdb) env.setStateBackend(new LmdbStateBackend({ path: join(root, 'lmdb') }));
  env.fromElements(1).print();
  return env.execute('standbys');
}

describe('ClusterJob options', () => {
  it('refuses standby replicas without a state backend that keeps stores on disk, naming the backend', async () => {
    await assert.rejects(
      run(1, false),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        error.message ===
          'Cluster mode: standbyReplicas 1 needs a state backend that keeps stores on disk (LmdbStateBackend); ' +
            'the state backend is heap',
    );
  });

  for (const replicas of [-1, 1.5, Number.NaN])
    it(`refuses standbyReplicas ${replicas}`, async () => {
      await assert.rejects(
        run(replicas, true),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          error.message === `Cluster mode: standbyReplicas must be a non-negative integer, not ${replicas}`,
      );
    });
});
