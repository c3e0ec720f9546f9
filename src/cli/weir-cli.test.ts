// The weir command line's argument handling: help, version, unknown options and commands, exit codes.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { runWeirCli } from './weir-cli.ts';

async function run(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runWeirCli(argv, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    terminal: { write: () => true },
  });
  return { code, out, err };
}

describe('weir command line', () => {
  it('prints the usage and exits 0 on --help and -h', async () => {
    for (const flag of ['--help', '-h']) {
      const { code, out } = await run(flag);
      assert.equal(code, 0);
      assert.match(out[0]!, /^usage:/);
      for (const verb of [
        'run',
        'list',
        'savepoint <job> <dir>',
        'stop <job>',
        'cancel <job>',
        'savepoint inspect',
      ]) {
        assert.match(out[0]!, new RegExp(`weir ${verb}`));
      }
    }
  });

  it('prints the package version on --version and -v', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    assert.deepEqual(await run('--version'), { code: 0, out: [version], err: [] });
    assert.deepEqual(await run('-v'), { code: 0, out: [version], err: [] });
  });

  it('fails with exit code 2 naming an unknown option', async () => {
    const { code, err } = await run('savepoint', 'inspect', '--bogus', 'x');
    assert.equal(code, 2);
    assert.match(err[0]!, /^weir: Unknown option '--bogus'/);
    assert.match(err[1]!, /^usage:/);
  });

  it('fails with exit code 2 on a missing or unknown command', async () => {
    assert.equal((await run()).code, 2);
    assert.equal((await run()).err[0], 'weir: no command given');
    const unknown = await run('deploy', 'x');
    assert.equal(unknown.code, 2);
    assert.equal(unknown.err[0], "weir: unknown command 'deploy x'");
  });

  it('fails with exit code 2 on bad run and stop arguments', async () => {
    assert.deepEqual((await run('run')).err[0], 'weir: weir run needs a job file');
    assert.deepEqual(
      (await run('run', '--parallelism', 'two', 'job.ts')).err[0],
      "weir: --parallelism must be an integer >= 1, got 'two'",
    );
    assert.deepEqual(
      (await run('run', '--web-ui-token', 's3cret', 'job.ts')).err[0],
      'weir: --web-ui-host and --web-ui-token need --web-ui PORT',
    );
    assert.deepEqual((await run('run', '--keep-ui', 'job.ts')).err[0], 'weir: --keep-ui needs --web-ui PORT');
    assert.deepEqual((await run('stop', 'orders')).err[0], 'weir: weir stop needs --savepoint <dir>');
    assert.deepEqual(
      (await run('savepoint', 'orders')).err[0],
      'weir: weir savepoint needs a job id or name and a directory',
    );
    for (const argv of [
      ['run'],
      ['run', '--keep-ui', 'job.ts'],
      ['stop', 'orders'],
      ['savepoint', 'orders'],
    ]) {
      assert.equal((await run(...argv)).code, 2);
    }
  });

  it('fails with exit code 2 naming the option on a missing or bad cluster address or job id', async () => {
    const cases: [string[], string][] = [
      [
        ['--cluster', 'broker:9092'],
        '--cluster needs --job-id J (or $WEIR_JOB_ID), the same in every process of the job',
      ],
      [['--job-id', 'orders'], '--job-id needs --cluster BOOTSTRAP'],
      [
        ['--cluster', '', '--job-id', 'orders'],
        "--cluster needs the Kafka brokers as host:port[,host:port...], got ''",
      ],
      [
        ['--cluster', 'broker', '--job-id', 'orders'],
        "--cluster needs the Kafka brokers as host:port[,host:port...], got 'broker' ('broker' is not host:port)",
      ],
      [
        ['--cluster', 'a:9092,b:99999', '--job-id', 'orders'],
        "--cluster needs the Kafka brokers as host:port[,host:port...], got 'a:9092,b:99999' ('b:99999' is not host:port)",
      ],
      [
        ['--cluster', 'broker:9092', '--job-id', 'my orders'],
        "--job-id must be 1 to 200 letters, digits, '.', '_' or '-' (it names Kafka topics), got 'my orders'",
      ],
      [['--standby-replicas', '1'], '--standby-replicas needs --cluster BOOTSTRAP'],
      [
        ['--cluster', 'broker:9092', '--job-id', 'orders', '--standby-replicas', 'one'],
        "--standby-replicas must be an integer >= 0, got 'one'",
      ],
      [
        ['--cluster', '[::1]:9092', '--job-id', 'orders', '--checkpoint-dir', '/tmp/c'],
        '--checkpoint-dir cannot be used with --cluster: in cluster mode a process runs its tasks on its own ' +
          'thread, and its state lives in Kafka (changelog topics), not in checkpoints',
      ],
    ];
    for (const [options, message] of cases) {
      const { code, err } = await run('run', ...options, 'job.ts');
      assert.equal(code, 2, options.join(' '));
      assert.equal(err[0], `weir: ${message}`);
    }
    // The environment's form names the variable it came from.
    process.env.WEIR_CLUSTER = 'broker:9092';
    process.env.WEIR_JOB_ID = 'my/orders';
    try {
      assert.equal(
        (await run('run', 'job.ts')).err[0],
        "weir: --job-id ($WEIR_JOB_ID) must be 1 to 200 letters, digits, '.', '_' or '-' (it names Kafka topics), got 'my/orders'",
      );
      delete process.env.WEIR_JOB_ID;
      assert.equal(
        (await run('run', 'job.ts')).err[0],
        'weir: --cluster ($WEIR_CLUSTER) needs --job-id J (or $WEIR_JOB_ID), the same in every process of the job',
      );
    } finally {
      delete process.env.WEIR_CLUSTER;
      delete process.env.WEIR_JOB_ID;
    }
  });

  it('gives --standby-replicas to the cluster options of the job file', async () => {
    // The standby check runs before any broker is contacted: the job's heap backend cannot hold standbys, and the
    // error says how many the command line asked for.
    const job = new URL('../../test/cli/counting-job.ts', import.meta.url).pathname;
    const { code, err } = await run(
      'run',
      '--cluster',
      '127.0.0.1:9',
      '--job-id',
      'standbys',
      '--standby-replicas',
      '2',
      job,
      '10',
      '0',
    );
    assert.equal(code, 1);
    assert.equal(
      err.at(-1),
      "Job 'cli-counting' of cluster job 'standbys' failed: Cluster mode: standbyReplicas 2 needs a state backend " +
        'that keeps stores on disk (LmdbStateBackend); the state backend is heap',
    );
  });

  it('fails with exit code 1 naming the address when no REST API answers', async () => {
    // A port that was free a moment ago: nothing listens there.
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    server.close();
    await once(server, 'close');
    const { code, err } = await run('list', '--address', `http://127.0.0.1:${port}`);
    assert.equal(code, 1);
    assert.equal(
      err[0],
      `weir: Cannot reach the REST API at http://127.0.0.1:${port} (ECONNREFUSED): is a job running with --web-ui?`,
    );
  });

  it('fails with exit code 1 when the path holds no checkpoint', async () => {
    const { code, err } = await run('savepoint', 'inspect', '/nonexistent/weir-cli-test');
    assert.equal(code, 1);
    assert.deepEqual(err, ['weir: no usable checkpoint or savepoint at /nonexistent/weir-cli-test']);
  });
});
