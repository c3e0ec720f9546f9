// A broker for bench/run.ts's Kafka comparison: WEIR_KAFKA_BOOTSTRAP if set, else a broker of this checkout that is
// already running, else one started with scripts/kafka/broker.sh for the run and stopped after it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function script(args: readonly string[]): { ok: boolean; stdout: string; stderr: string } {
  const r = spawnSync('bash', args, { cwd: ROOT, encoding: 'utf8' });
  return { ok: r.status === 0 && r.error === undefined, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
}

/**
 * Runs `body` with a broker's bootstrap address, or returns the sentence saying why no broker could be had (no
 * Java, no Maven to fetch the broker's jars, the client would not build, the broker would not start).
 */
export async function withBenchBroker(
  log: (line: string) => void,
  body: (servers: string) => Promise<void>,
): Promise<string | undefined> {
  const given = process.env.WEIR_KAFKA_BOOTSTRAP;
  if (given !== undefined && given !== '') {
    await body(given);
    return undefined;
  }
  const client = script(['scripts/kafka/install-client.sh']);
  if (!client.ok) return `the Kafka client could not be installed: ${client.stderr.split('\n').at(-1)}`;
  const running = script(['scripts/kafka/broker.sh', 'status']);
  if (running.ok && running.stdout !== '') {
    log(`kafka: using the broker already running at ${running.stdout}`);
    await body(running.stdout);
    return undefined;
  }
  log('kafka: starting a broker (scripts/kafka/broker.sh start)');
  const started = script(['scripts/kafka/broker.sh', 'start']);
  if (!started.ok) return `the broker did not start: ${started.stderr.split('\n').slice(-3).join(' ')}`;
  try {
    await body(started.stdout.split('\n').at(-1)!);
  } finally {
    script(['scripts/kafka/broker.sh', 'stop']);
  }
  return undefined;
}
