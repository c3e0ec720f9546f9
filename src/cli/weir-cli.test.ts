// The weir command line's argument handling: help, version, unknown options and commands.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runWeirCli } from './weir-cli.ts';

function run(...argv: string[]): { code: number; lines: string[] } {
  const lines: string[] = [];
  const code = runWeirCli(argv, (line) => lines.push(line));
  return { code, lines };
}

describe('weir command line', () => {
  it('prints the usage and exits 0 on --help and -h', () => {
    for (const flag of ['--help', '-h']) {
      const { code, lines } = run(flag);
      assert.equal(code, 0);
      assert.match(lines[0]!, /^usage:/);
      assert.match(lines[0]!, /weir savepoint inspect <path>/);
    }
  });

  it('prints the package version on --version and -v', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    assert.deepEqual(run('--version'), { code: 0, lines: [version] });
    assert.deepEqual(run('-v'), { code: 0, lines: [version] });
  });

  it('fails with exit code 2 naming an unknown option', () => {
    const { code, lines } = run('savepoint', 'inspect', '--bogus', 'x');
    assert.equal(code, 2);
    assert.match(lines[0]!, /^weir: Unknown option '--bogus'/);
    assert.match(lines[1]!, /^usage:/);
  });

  it('fails with exit code 2 on a missing or unknown command', () => {
    assert.equal(run().code, 2);
    assert.equal(run().lines[0], 'weir: no command given');
    const unknown = run('savepoint', 'list');
    assert.equal(unknown.code, 2);
    assert.equal(unknown.lines[0], "weir: unknown command 'savepoint list'");
  });

  it('fails with exit code 1 when the path holds no checkpoint', () => {
    const { code, lines } = run('savepoint', 'inspect', '/nonexistent/weir-cli-test');
    assert.equal(code, 1);
    assert.deepEqual(lines, ['weir: no usable checkpoint or savepoint at /nonexistent/weir-cli-test']);
  });
});
