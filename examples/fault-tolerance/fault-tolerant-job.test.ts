// Tests the fault-tolerance example: a failure mid-run still commits every click exactly once.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StreamExecutionEnvironment } from '../../src/api/stream-execution-environment.ts';
import { runWeirCli } from '../../src/cli/weir-cli.ts';
import { buildFaultTolerantJob } from './fault-tolerant-job.ts';
import { RecordingLogger } from '../../test/support/recording-logger.ts';

const dir = mkdtempSync(join(tmpdir(), 'weir-example-ft-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('fault-tolerance example', () => {
  it('restarts after the simulated crash and counts every click exactly once', async () => {
    const logger = new RecordingLogger();
    const env = StreamExecutionEnvironment.create({ parallelism: 2, logger });
    buildFaultTolerantJob(env, {
      checkpoints: join(dir, 'checkpoints'),
      output: join(dir, 'output'),
      stateDirectory: join(dir, 'state'),
      clicks: 12_000,
      ratePerSecond: 40_000,
      failOnce: { id: 6_000, marker: join(dir, 'crashed-once') },
    });
    await env.execute('example');
    assert.match(logger.messages.join('\n'), /simulated crash at click 6000.*restart 1/s);
    const lines = readdirSync(join(dir, 'output'))
      .filter((f) => f.startsWith('part-'))
      .flatMap((f) =>
        readFileSync(join(dir, 'output', f), 'utf8')
          .split('\n')
          .filter(Boolean),
      )
      .map((l) => JSON.parse(l) as { user: string; clicks: number });
    assert.equal(
      lines.reduce((n, l) => n + l.clicks, 0),
      12_000,
    );
    assert.equal(new Set(lines.map((l) => l.user)).size, 50);
    const printed: string[] = [];
    assert.equal(
      await runWeirCli(['savepoint', 'inspect', join(dir, 'checkpoints')], {
        out: (l) => printed.push(l),
        err: (l) => printed.push(l),
        terminal: { write: () => true },
      }),
      0,
    );
    assert.match(
      printed.join('\n'),
      /checkpoint \d+ of job 'example'[\s\S]*clicks-per-minute: p=2, \d+ key groups/,
    );
  });
});
