// Exactly-once from Kafka to Kafka under SIGKILL: a job killed at 20+ seeded protocol moments commits, as a
// read_committed consumer sees it, exactly the output of an uninterrupted run, record for record.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { runChildProcess, seededRandom } from '../support/child-run.ts';
import { OUTPUTS } from '../crash/crash-job.ts';
import { crashInput, INPUT_PARTITIONS } from './kafka-crash-job.ts';
import { formatKillPlan, type KillPlan } from '../crash/kill-switch.ts';
import { bootstrapServers, createTopic, produce, readAll, uniqueTopic } from './kafka-test-cluster.ts';

const COUNT = 25_000;
const KILLS = 20;
/** Input records one run may read at most before it dies anyway (a fast machine could otherwise finish early). */
const READ_CAP = 4_000;
const SEED = 20_261_201;
/** A run that neither finishes nor reaches its kill moment by then is hung (a stalled restore). */
const RUN_TIMEOUT_MS = 180_000;
const child = fileURLToPath(new URL('./kafka-crash-child.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'weir-kafka-crash-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** The seeded kill moments: every kind of moment in turn, at a random count within the first few checkpoints. */
function killPlans(count: number): KillPlan[] {
  const next = seededRandom(SEED);
  const kinds = ['read', 'sealed', 'durable', 'committed'] as const;
  return Array.from({ length: count }, (_, i) => {
    const at = kinds[i % kinds.length]!;
    // A restored run's first checkpoints take long (its sink recovers first), so later moments would meet the
    // read cap: pre-commits 1-3, completions and commits 1-2 (counted over both sink subtasks).
    const n =
      at === 'read' ? 200 + Math.floor(next() * 1_000) : 1 + Math.floor(next() * (at === 'sealed' ? 3 : 2));
    return { at, n };
  });
}

interface Run {
  readonly killed: string | undefined;
  readonly restoredFrom: number;
}

/** Runs the child once; resolves with the moment it killed itself at, or undefined when it finished the job. */
async function runChild(args: string[]): Promise<Run> {
  const exit = await runChildProcess(child, args, {
    what: `kafka crash child with plan ${args.at(-2)}`,
    timeoutMs: RUN_TIMEOUT_MS,
  });
  const restoredFrom = Number(/RUNNING (\d+)/.exec(exit.stdout)?.[1] ?? -1);
  const killed = /KILL (\S+)/.exec(exit.stdout)?.[1];
  if (exit.signal === 'SIGKILL' && killed !== undefined) return { killed, restoredFrom };
  if (exit.code === 0 && exit.stdout.includes('DONE')) return { killed: undefined, restoredFrom };
  throw new Error(
    `kafka crash child exited with ${exit.code ?? exit.signal}: ${exit.stdout}\n${exit.stderr}`,
  );
}

/** What `expected` holds that `actual` does not, and the other way round, counting repeats. */
function multisetDifference(expected: string[], actual: string[]): { missing: string[]; extra: string[] } {
  const counts = new Map<string, number>();
  for (const r of actual) counts.set(r, (counts.get(r) ?? 0) + 1);
  const missing: string[] = [];
  for (const r of expected) {
    const n = counts.get(r) ?? 0;
    if (n === 0) missing.push(r);
    else counts.set(r, n - 1);
  }
  const extra: string[] = [];
  for (const [r, n] of counts) for (let i = 0; i < n; i++) extra.push(r);
  return { missing, extra };
}

/** The output topic as a read_committed consumer sees it: "<output> <json>" per record, sorted. */
async function committed(topic: string): Promise<string[]> {
  return (await readAll(topic)).map((r) => `${r.key} ${r.value}`).sort();
}

describe('Kafka crash test: exactly-once from topic to topic under SIGKILL', () => {
  it(
    `commits exactly the uninterrupted output after ${KILLS} kills at seeded protocol moments`,
    { timeout: 900_000 },
    async () => {
      const input = uniqueTopic('crash-in');
      await createTopic(input, INPUT_PARTITIONS);
      await produce(input, crashInput(COUNT));

      const run = async (name: string, plans: KillPlan[]) => {
        const output = uniqueTopic(`crash-${name}`);
        await createTopic(output, 2);
        const base = [bootstrapServers(), input, output, uniqueTopic(`txn-${name}`), join(root, name)];
        const runs: Run[] = [];
        for (let i = 0; ; i++) {
          const plan = i < plans.length ? formatKillPlan(plans[i]!) : 'none';
          const result = await runChild([...base, plan, String(READ_CAP)]);
          if (process.env.WEIR_CRASH_VERBOSE)
            process.stderr.write(
              `${name} run ${i}: from checkpoint ${result.restoredFrom}, ${result.killed === undefined ? 'finished' : `killed at ${result.killed} (planned ${plan})`}\n`,
            );
          runs.push(result);
          if (result.killed === undefined) break;
          assert.ok(
            result.killed === plan || result.killed === `read:${READ_CAP}`,
            `the child died at ${result.killed}, planned ${plan}`,
          );
        }
        return { output, runs };
      };

      const reference = await run('reference', []);
      const expected = await committed(reference.output);
      const count = (output: string) => expected.filter((r) => r.startsWith(`${output} `)).length;
      assert.ok(count('windows') > 1_000 && count('big') > 1_000 && count('idle') > 10, 'a thin reference');
      assert.ok(count('fraud') > 10 && count('fraud-timeouts') > 10, 'no CEP output in the reference');
      assert.deepEqual(new Set(expected.map((r) => r.split(' ')[0])), new Set(OUTPUTS));

      const crashed = await run('crashed', killPlans(KILLS));
      const kills = crashed.runs.filter((r) => r.killed !== undefined).length;
      assert.equal(kills, KILLS, `only ${kills} kills before the job finished; raise COUNT`);
      // Progress between kills: later runs restore from later checkpoints.
      assert.ok(crashed.runs.at(-1)!.restoredFrom > 0);
      const actual = await committed(crashed.output);
      const { missing, extra } = multisetDifference(expected, actual);
      assert.ok(
        missing.length === 0 && extra.length === 0,
        `committed records differ from the uninterrupted run (${actual.length} vs ${expected.length}): ` +
          `missing ${JSON.stringify(missing.slice(0, 20))}, extra ${JSON.stringify(extra.slice(0, 20))}; ` +
          `runs ${JSON.stringify(crashed.runs)}`,
      );
    },
  );
});
