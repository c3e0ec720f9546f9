// The processes of a cluster-mode test (child processes whose logs say which tasks they run) and a read_committed tail of its output.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  call,
  kafkaClient,
  type ClientConsumer,
  type ClientMessage,
  type ClientMetadata,
} from '../../src/connectors/kafka/kafka-client.ts';
import { uniqueTopic } from './kafka-test-cluster.ts';

/**
 * Every process a test started: a wait of one process may depend on the others' logs (the tasks split 6/6), so a
 * new line of any re-checks the waits of all, and a wait that times out prints every log.
 */
export class JobProcesses {
  readonly members: Member[] = [];
  private watchers: { check: () => boolean; then: () => void }[] = [];

  constructor(
    /** How long a wait lasts before it fails naming what it waited for. */
    readonly waitMs: number,
    /** Extra environment of every process. */
    private readonly env: Readonly<Record<string, string>> = {},
  ) {}

  /** Starts `node --import tsx <args>` as a process of the cluster, named `name` in failures. */
  start(name: string, args: readonly string[]): Member {
    const member = new Member(this, name, args, this.env);
    this.members.push(member);
    return member;
  }

  /** The processes that have not exited. */
  get running(): Member[] {
    return this.members.filter((m) => m.process.exitCode === null && m.process.signalCode === null);
  }

  /** SIGKILLs every process still running (after a test, failed or not). */
  killAll(): void {
    for (const m of this.running) m.process.kill('SIGKILL');
  }

  /** Calls `then` once `check` holds, re-checked at every line any process logs (a measurement, not a wait). */
  watch(check: () => boolean, then: () => void): void {
    if (check()) then();
    else this.watchers.push({ check, then });
  }

  recheck(): void {
    for (const m of this.members) m.recheck();
    this.watchers = this.watchers.filter((w) => (w.check() ? (w.then(), false) : true));
  }

  /**
   * A line per process: whether it runs and which tasks, and its last lines: what a failure message shows first
   * (a CI excerpt may keep only the start of it).
   */
  summary(lastLines = 3): string {
    const running = this.running.map(
      (m) =>
        `  ${m.name} runs [${m.tasks.join(' ')}]` +
        m.lines
          .slice(-lastLines)
          .map((l) => `\n    ${l.text.slice(0, 300)}`)
          .join(''),
    );
    const gone = this.members
      .filter((m) => !this.running.includes(m))
      .map((m) => `${m.name} (${m.process.signalCode ?? m.process.exitCode})`);
    return [...running, `  gone: ${gone.join(' ')}`].join('\n');
  }

  /** Every process's log, for a failure message. */
  logs(): string {
    return this.members.map((m) => `${m.name}:\n${m.log()}`).join('\n');
  }
}

/** A process of the cluster, with the lines it logged and when. */
export class Member {
  readonly process: ChildProcess;
  readonly lines: { at: number; text: string }[] = [];
  private waiters: { check: () => boolean; resolve: () => void }[] = [];
  readonly exited: Promise<number | null>;

  constructor(
    private readonly group: JobProcesses,
    readonly name: string,
    /** What node runs after `--import tsx`: a job file and its arguments, or the weir CLI. */
    args: readonly string[],
    env: Readonly<Record<string, string>>,
  ) {
    this.process = spawn(
      process.execPath,
      ['--import', 'tsx', ...args],
      // A process of the cluster needs more of libuv's threads than the default 4 (docs/scale-out.md).
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, WEIR_LOG_LEVEL: 'info', UV_THREADPOOL_SIZE: '32', ...env },
      },
    );
    const take = (chunk: Buffer): void => {
      for (const text of chunk.toString().split('\n'))
        if (text !== '') this.lines.push({ at: performance.now(), text });
      group.recheck();
    };
    this.process.stdout!.on('data', take);
    this.process.stderr!.on('data', take);
    this.exited = new Promise((resolve) => this.process.once('exit', (code) => resolve(code)));
  }

  /** The tasks this process runs now (started and not stopped), from its log. */
  get tasks(): string[] {
    const running = new Set<string>();
    for (const { text } of this.lines) {
      const m = /task (\d+_\d+) (started|stopped)/.exec(text);
      if (m === null) continue;
      if (m[2] === 'started') running.add(m[1]!);
      else running.delete(m[1]!);
    }
    return [...running].sort();
  }

  /** When a line matching `pattern` was logged (the first one after `since`). */
  loggedAt(pattern: RegExp, since = 0): number | undefined {
    return this.lines.find((l) => l.at >= since && pattern.test(l.text))?.at;
  }

  /** Resolves the waits whose condition now holds. */
  recheck(): void {
    this.waiters = this.waiters.filter((w) => (w.check() ? (w.resolve(), false) : true));
  }

  /** Resolves when `check` holds (re-checked at every line any process logs); fails naming `what` after the wait. */
  waitFor(what: string, check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    const { waitMs } = this.group;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.name}: waited ${waitMs} ms for ${what}; logs:\n${this.group.logs()}`)),
        waitMs,
      );
      this.waiters.push({ check, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /** Its exit code; fails naming it, with its log, when it has not exited after the group's wait. */
  exitCode(why: string): Promise<number | null> {
    const { waitMs } = this.group;
    let timer: NodeJS.Timeout | undefined = undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`${this.name}: waited ${waitMs} ms for it to exit (${why}); log:\n${this.log()}`)),
        waitMs,
      );
    });
    return Promise.race([this.exited, late]).finally(() => clearTimeout(timer));
  }

  log(): string {
    return this.lines.map((l) => `  ${l.text}`).join('\n');
  }
}

/** A read_committed consumer of a whole topic from its start, and waits on how much it has seen. */
export class OutputTail {
  readonly records: { at: number; value: string }[] = [];
  private stopped = false;
  /** Set when work a wait depends on (the test writing the input) failed: every wait then fails with it. */
  private failure: Error | undefined = undefined;
  private readonly loop: Promise<void>;

  private constructor(
    private readonly consumer: ClientConsumer,
    private readonly waitMs: number,
  ) {
    this.loop = this.run();
  }

  static async open(topic: string, partitions: number, servers: string, waitMs: number): Promise<OutputTail> {
    const { KafkaConsumer } = kafkaClient();
    const consumer = new KafkaConsumer(
      {
        'bootstrap.servers': servers,
        'group.id': uniqueTopic('tail'),
        'enable.auto.commit': false,
        'isolation.level': 'read_committed',
      },
      { 'auto.offset.reset': 'earliest' },
    );
    await call<ClientMetadata>('connecting the tail', (cb) => consumer.connect({ timeout: 30_000 }, cb));
    consumer.assign(Array.from({ length: partitions }, (_, partition) => ({ topic, partition, offset: 0 })));
    consumer.setDefaultConsumeTimeout(50);
    return new OutputTail(consumer, waitMs);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const batch = await call<ClientMessage[]>('tailing', (cb) => this.consumer.consume(1000, cb));
      const at = performance.now();
      for (const m of batch) this.records.push({ at, value: m.value!.toString() });
    }
  }

  /** Resolves (with the time) once the tail has seen `count` records; fails after the wait, saying how many it saw. */
  waitForCount(count: number, why = ''): Promise<number> {
    return this.waitUntil(
      `${count} output records${why === '' ? '' : ` (${why})`}`,
      () => this.records.length >= count,
    );
  }

  /**
   * Makes every wait fail as soon as `work` fails, with its error: output that waits on input the test could not
   * write would otherwise only time out, without saying why.
   */
  dependsOn(what: string, work: Promise<unknown>): void {
    work.catch((error: Error) => {
      this.failure ??= new Error(`${what} failed: ${error.message}`, { cause: error });
    });
  }

  /** Resolves (with the time) once `check` holds of the records seen; fails after the wait naming `what`. */
  async waitUntil(what: string, check: () => boolean): Promise<number> {
    const deadline = performance.now() + this.waitMs;
    while (!check()) {
      if (this.failure !== undefined) throw this.failure;
      if (performance.now() > deadline)
        throw new Error(`waited ${this.waitMs} ms for ${what}, saw ${this.records.length} output records`);
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return performance.now();
  }

  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.loop;
    await call('disconnecting the tail', (cb) => this.consumer.disconnect(cb));
  }
}
