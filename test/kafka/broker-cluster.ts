// The three-broker Kafka cluster of scripts/kafka/cluster.sh, driven from a test: start, SIGKILL a broker, bring it back, stop.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  call,
  kafkaClient,
  type ClientConsumer,
  type ClientMetadata,
} from '../../src/connectors/kafka/kafka-client.ts';

const script = fileURLToPath(new URL('../../scripts/kafka/cluster.sh', import.meta.url));
const run = promisify(execFile);

/** A partition as the cluster's metadata describes it: its leader, replicas and in-sync replicas (node ids). */
export interface PartitionReplicas {
  readonly id: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isrs: readonly number[];
}

/** Three KRaft nodes, each broker and controller; every topic has 3 replicas and min.insync.replicas 2. */
export class BrokerCluster {
  /** The nodes this test killed and has not brought back. */
  private readonly down = new Set<number>();

  private constructor(
    /** The bootstrap list of the three brokers. */
    readonly servers: string,
    /** Whether {@link stop} stops it: not a cluster that was running before (`cluster.sh start` by hand). */
    private readonly owned: boolean,
  ) {}

  /**
   * Formats and starts the three nodes and returns once each said it started. A cluster started by hand
   * (`scripts/kafka/cluster.sh start`) is used as it is (a node of it that is down is started) and left running.
   */
  static async start(): Promise<BrokerCluster> {
    const before = await cluster(['status'], 'asking whether the cluster runs', 30_000).catch(
      () => undefined,
    );
    const { stdout } = await cluster(['start'], 'starting the three-broker cluster', 240_000);
    return new BrokerCluster(stdout.trim(), before === undefined);
  }

  /** SIGKILLs node `n` (1-3) and returns once the process is gone; its data and ports stay for {@link up}. */
  async kill(n: number): Promise<void> {
    this.down.add(n);
    await cluster(['kill', String(n)], `killing broker ${n}`, 30_000);
  }

  /** Starts node `n` again on its data and ports; returns the milliseconds until it said it started. */
  async up(n: number): Promise<number> {
    const started = performance.now();
    await cluster(['up', String(n)], `bringing broker ${n} back`, 180_000);
    this.down.delete(n);
    return performance.now() - started;
  }

  /**
   * Stops every node and deletes the data of a cluster this test started; one that was running before is left
   * running, with the nodes the test killed brought back.
   */
  async stop(): Promise<void> {
    if (this.owned) await cluster(['stop'], 'stopping the three-broker cluster', 60_000);
    else for (const n of [...this.down]) await this.up(n);
  }

  /** Every topic's partitions, with their replicas, from the metadata of the brokers that answer. */
  async topics(): Promise<Map<string, PartitionReplicas[]>> {
    const { KafkaConsumer } = kafkaClient();
    const consumer: ClientConsumer = new KafkaConsumer(
      { 'bootstrap.servers': this.servers, 'group.id': 'metadata' },
      {},
    );
    await call<ClientMetadata>('connecting for metadata', (cb) => consumer.connect({ timeout: 30_000 }, cb));
    try {
      const metadata = await call<ClientMetadata>('reading the metadata of every topic', (cb) =>
        consumer.getMetadata({ allTopics: true, timeout: 30_000 }, cb),
      );
      // librdkafka's metadata carries each partition's leader, replicas and ISR; the client's type names only ids.
      return new Map(
        metadata.topics.map((t) => [t.name, t.partitions as unknown as PartitionReplicas[]] as const),
      );
    } finally {
      await call('disconnecting', (cb) => consumer.disconnect(cb));
    }
  }
}

async function cluster(
  args: readonly string[],
  what: string,
  timeoutMs: number,
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run('bash', [script, ...args], { timeout: timeoutMs, killSignal: 'SIGKILL' });
  } catch (error) {
    const e = error as { stderr?: string; killed?: boolean; message: string };
    throw new Error(
      `${what} ${e.killed === true ? `did not finish within ${timeoutMs} ms` : 'failed'}: ${e.message}\n${e.stderr ?? ''}`,
      { cause: error },
    );
  }
}
