// The cluster-mode example (examples/cluster-page-views) as two `weir run --cluster` processes: its output, exactly, against a plain reference.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import {
  OUT_OF_ORDERNESS_MS,
  pathOf,
  samplePageViews,
  SAMPLE_PARTITIONS,
  WINDOW,
  type PageViewCount,
} from '../../examples/cluster-page-views/page-views.ts';
import { createTopics, writeSampleViews } from '../../examples/cluster-page-views/write-input.ts';
import { bootstrapServers, highWatermarks, readAll, uniqueTopic } from './kafka-test-cluster.ts';

const cli = fileURLToPath(new URL('../../src/cli/weir-cli.ts', import.meta.url));
const jobFile = fileURLToPath(new URL('../../examples/cluster-page-views/job.ts', import.meta.url));
const VIEWS = 6_000;
/** Every wait fails after this long, naming what it waited for. */
const WAIT_MS = 90_000;

/**
 * The counts the job must write for the sample, computed by a plain loop: humans only, paths without query
 * strings, per 10 s window, for the windows the watermark closes. Each input partition's watermark is its latest
 * view's time minus the bound minus 1 ms, the windows' watermark the least of the four, and a window closes when
 * that watermark reaches its last millisecond.
 */
function expectedCounts(): PageViewCount[] {
  const views = samplePageViews(VIEWS);
  const latest = new Array<number>(SAMPLE_PARTITIONS).fill(-Infinity);
  const counts = new Map<string, PageViewCount>();
  for (const { partition, view } of views) {
    latest[partition] = Math.max(latest[partition]!, view.ts);
    if (view.bot) continue;
    const page = pathOf(view.page);
    const windowStart = view.ts - (view.ts % WINDOW);
    const key = `${page} ${windowStart}`;
    const count = counts.get(key);
    counts.set(key, { page, windowStart, views: (count?.views ?? 0) + 1 });
  }
  const watermark = Math.min(...latest) - OUT_OF_ORDERNESS_MS - 1;
  return [...counts.values()].filter((c) => c.windowStart + WINDOW - 1 <= watermark);
}

const sorted = (counts: readonly PageViewCount[]): string[] =>
  counts.map((c) => JSON.stringify(c)).sort((a, b) => a.localeCompare(b));

/** One `weir run --cluster` process, with the tasks its log says it runs. */
class Process {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;

  constructor(jobId: string, input: string, output: string) {
    this.child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        cli,
        'run',
        '--cluster',
        bootstrapServers(),
        '--job-id',
        jobId,
        jobFile,
        input,
        output,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, WEIR_LOG_LEVEL: 'info', UV_THREADPOOL_SIZE: '20' },
      },
    );
    const take = (chunk: Buffer): void => {
      for (const line of chunk.toString().split('\n')) if (line !== '') this.lines.push(line);
    };
    this.child.stdout!.on('data', take);
    this.child.stderr!.on('data', take);
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  tasks(): string[] {
    const running = new Set<string>();
    for (const line of this.lines) {
      const m = /task (\d+_\d+) (started|stopped)/.exec(line);
      if (m === null) continue;
      if (m[2] === 'started') running.add(m[1]!);
      else running.delete(m[1]!);
    }
    return [...running].sort();
  }
}

const processes: Process[] = [];
after(() => {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
});

async function waitFor(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = performance.now() + WAIT_MS;
  while (!(await check())) {
    if (performance.now() > deadline)
      throw new Error(
        `waited ${WAIT_MS / 1000} s for ${what}; logs:\n` +
          processes.map((p) => p.lines.join('\n')).join('\n--\n'),
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('examples/cluster-page-views', { timeout: 300_000 }, () => {
  it('two `weir run --cluster` processes share its 8 tasks and write exactly the counts of the closed windows', async () => {
    const input = uniqueTopic('page-views');
    const output = uniqueTopic('page-view-counts');
    const jobId = uniqueTopic('page-views-job');
    await createTopics(bootstrapServers(), input, output);
    const expected = expectedCounts();
    // 12 windows of event time; the watermark closes all but the last: 11 windows of 6 pages.
    assert.equal(expected.length, 66);

    const a = new Process(jobId, input, output);
    const b = new Process(jobId, input, output);
    processes.push(a, b);
    await waitFor('the 8 tasks split 4/4', () => {
      const all = [...a.tasks(), ...b.tasks()];
      return a.tasks().length === 4 && b.tasks().length === 4 && new Set(all).size === 8;
    });
    await writeSampleViews(bootstrapServers(), input, VIEWS);
    // Committed output records (the high watermark also counts transaction markers: read them to be sure).
    await waitFor(`${expected.length} counts in ${output}`, async () => {
      const ends = await highWatermarks(output);
      if ([...ends.values()].reduce((s, n) => s + n, 0) < expected.length) return false;
      return (await readAll(output)).length >= expected.length;
    });
    for (const p of [a, b]) {
      p.child.kill('SIGTERM');
      assert.equal(await p.exited, 0, p.lines.join('\n'));
    }

    const written = (await readAll(output)).map((r) => JSON.parse(r.value) as PageViewCount);
    assert.deepEqual(sorted(written), sorted(expected), 'every closed window once, with its exact count');
    for (const p of [a, b])
      assert.ok(
        p.lines.some((l) => l.includes(`runs as a process of cluster job '${jobId}'`)) &&
          p.lines.some((l) => l.includes(`left cluster job '${jobId}'`)),
        p.lines.join('\n'),
      );
  });
});
