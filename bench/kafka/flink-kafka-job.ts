// Flink's side of the Kafka comparison: one warm JVM running bench/flink's KafkaBench, driven over stdin, one
// command per run (see KafkaBench.java), so Flink's runs after the first use JIT-compiled code as Weir's do.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { KafkaJobSpec } from './weir-kafka-job.ts';

const FLINK_DIR = fileURLToPath(new URL('../flink/', import.meta.url));

/** One Flink run: the job's net runtime (from start to end, with task deployment and the final checkpoint). */
export interface FlinkKafkaRun {
  readonly netMs: number;
  /** The whole execute() call, including starting a MiniCluster. */
  readonly wallMs: number;
}

interface Line {
  readonly type: string;
  readonly message?: string;
  readonly netMs?: number;
  readonly wallMs?: number;
}

export class FlinkKafkaJob {
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private readonly waiting: ((line: Line | Error) => void)[] = [];
  private stderr = '';

  private constructor(servers: string) {
    const classpath = `${FLINK_DIR}target/classes:${readFileSync(`${FLINK_DIR}target/classpath.txt`, 'utf8').trim()}`;
    this.child = spawn('java', ['-cp', classpath, 'dev.weir.bench.KafkaBench', '--bootstrap', servers], {
      cwd: FLINK_DIR,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let pending = '';
    this.child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const text = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        if (text.startsWith('{')) this.waiting.shift()?.(JSON.parse(text) as Line);
      }
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-20_000);
    });
    this.child.on('close', (code) => {
      const error = new Error(
        `Flink's KafkaBench exited with ${code}:\n${this.stderr.split('\n').slice(-30).join('\n')}`,
      );
      for (const w of this.waiting.splice(0)) w(error);
    });
  }

  /** Starts the JVM (bench/flink must be built) and waits until it reads commands. */
  static async start(servers: string): Promise<FlinkKafkaJob> {
    const job = new FlinkKafkaJob(servers);
    const ready = await job.next();
    if (ready.type !== 'kafka-ready') throw new Error(`KafkaBench did not start: ${JSON.stringify(ready)}`);
    return job;
  }

  private next(): Promise<Line> {
    return new Promise((resolve, reject) =>
      this.waiting.push((line) => (line instanceof Error ? reject(line) : resolve(line))),
    );
  }

  /** Runs the job once to the end of the input topic. */
  async run(spec: KafkaJobSpec): Promise<FlinkKafkaRun> {
    const storage = mkdtempSync(join(tmpdir(), 'weir-bench-flink-kafka-'));
    try {
      const answer = this.next();
      this.child.stdin.write(
        `run ${spec.input} ${spec.output} ${spec.guarantee} ${spec.parallelism} ${spec.checkpointMs} ${storage} ${spec.stopOffsets?.join(',') ?? 'latest'}\n`,
      );
      const line = await answer;
      if (line.type !== 'kafka-run' || line.netMs === undefined || line.wallMs === undefined)
        throw new Error(`Flink's Kafka job failed: ${line.message ?? JSON.stringify(line)}`);
      return { netMs: line.netMs, wallMs: line.wallMs };
    } finally {
      rmSync(storage, { recursive: true, force: true });
    }
  }

  /** Ends the JVM and waits for it to exit. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end('quit\n');
    await exited;
  }
}
