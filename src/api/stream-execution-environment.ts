// StreamExecutionEnvironment: where a job is defined (sources, settings) and executed.
import { ConnectedStreams } from './connected-streams.ts';
import type { KeySelector } from '../core/functions.ts';
import { DataStream } from './data-stream.ts';
import { ConfigurationError } from '../core/errors.ts';
import './keyed-stream.ts';
import { AsyncIterableSource, type AsyncIterableInput } from '../connectors/async-iterable-source.ts';
import { CollectionSource } from '../connectors/collection-source.ts';
import type { Source } from '../core/source.ts';
import { StreamGraph } from '../graph/stream-graph.ts';
import { Transformation } from '../graph/transformation.ts';
import type { JobSnapshot } from '../runtime/job-snapshot.ts';
import { SourceOperator } from '../operators/source-operator.ts';
import { MetricRegistry, type MetricRegistryOptions } from '../metrics/metric-registry.ts';
import { RunningJob } from '../execution/running-job.ts';
import { environmentDefaults } from './environment-defaults.ts';
import type { WebUiOptions } from '../web/web-server.ts';
import { defaultLogger, type Logger } from '../core/logger.ts';
import { checkParallelism, DEFAULT_MAX_PARALLELISM } from '../state/key-group-range.ts';
import { SystemClock, type ProcessingTimeClock } from '../core/clock.ts';
import type { WatermarkStrategy } from '../time/watermark-strategy.ts';
import {
  checkAutoWatermarkRecords,
  checkWatermarkEmissionMode,
  DEFAULT_AUTO_WATERMARK_INTERVAL,
  DEFAULT_AUTO_WATERMARK_RECORDS,
  type WatermarkEmission,
  type WatermarkEmissionMode,
} from '../time/watermark-emission.ts';
import {
  checkpointConfig,
  type CheckpointConfig,
  type CheckpointingOptions,
} from '../execution/checkpoint-config.ts';
import { loadSavepoint } from '../execution/checkpoint-storage.ts';
import { startFaultTolerantJob } from '../execution/fault-tolerant-execution.ts';
import { JobClient } from '../execution/job-client.ts';
import type { JobExecutionResult } from '../execution/job-execution-result.ts';
import { RestartStrategies, type RestartStrategy } from '../execution/restart-strategies.ts';
import type { StateBackend } from '../state/state-backend.ts';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { ResourceLimits } from 'node:worker_threads';
import { runWorkerSlot, workerSlotData } from '../execution/workers/worker-slot.ts';
import type { WorkerSettings } from '../execution/workers/threaded-job-runtime.ts';
import { jobLocator, type JobLocation } from '../execution/workers/job-locator.ts';
import type { ClusterOptions } from '../execution/cluster/cluster-options.ts';

/** Options of `execute` / `executeAsync`. */
export interface ExecuteOptions {
  /** A snapshot to start from (from `loadSavepoint`, `loadLatestCheckpoint` or a harness). */
  restoreFrom?: JobSnapshot;
  /** A savepoint directory, a retained checkpoint (`chk-<id>`), or a checkpoint storage directory (its latest). */
  savepointPath?: string;
  /** Ignore state in the snapshot for operators this job no longer has (otherwise restoring fails naming them). */
  allowNonRestoredState?: boolean;
  /**
   * On SIGTERM, stop the job with a savepoint under this directory (see `JobClient.stopWithSavepoint`) instead of
   * letting the signal kill the process: `execute` then resolves once the savepoint is durable, and the process
   * can exit normally. If the savepoint fails, the job is cancelled (and `execute` rejects).
   */
  savepointOnSigterm?: string;
  /**
   * Serve the REST API and the dashboard while the job runs (Flink's web UI), e.g. `{ port: 8081 }`. Binds to
   * 127.0.0.1 unless `host` is given (then `token` is required). Closed when the job ends, unless `keepAlive`
   * keeps it serving the job's final state until SIGINT (or `JobClient.closeWebUi()`).
   */
  webUi?: WebUiOptions;
}

/** Settings of an environment; all optional. */
export interface EnvironmentOptions {
  /** Default parallelism of every operator (default 1). */
  parallelism?: number;
  /** Number of key groups (default 128): the upper bound of any keyed operator's parallelism. */
  maxParallelism?: number;
  /**
   * Interval of clock-driven watermark emission in ms (default 200; 0 disables it). In the default deterministic
   * mode it drives unbounded sources only; see {@link EnvironmentOptions.watermarkEmission}.
   */
  autoWatermarkInterval?: number;
  /** Records between two periodic watermark emissions in deterministic mode (default 100). */
  autoWatermarkRecords?: number;
  /**
   * `'deterministic'` (default): periodic generators emit every `autoWatermarkRecords` records and at the end of
   * input, so a bounded job's output depends only on its input; unbounded sources also emit on the clock.
   * `'processing-time'`: Flink's rule, every `autoWatermarkInterval` of processing time only. See docs/event-time.md.
   */
  watermarkEmission?: WatermarkEmissionMode;
  /** The processing-time clock (default: the system clock). Tests pass a ManualClock. */
  clock?: ProcessingTimeClock;
  /**
   * Worker threads the job's subtasks run on (default 1: everything on this thread). With 2 or more, slot i (subtask
   * i of every operator) runs on worker `i % workers`, so a job at parallelism p uses up to p cores; `'auto'` is one
   * worker per core, capped by the job's parallelism. Each worker imports the job's module again (see
   * {@link EnvironmentOptions.jobModule}) and its `execute()` runs that worker's share: build and execute the job at
   * the module's top level. See docs/architecture.md, "Worker mode".
   */
  workers?: number | 'auto';
  /**
   * Worker mode: the module that builds and executes the job, imported by every worker (default: the process's
   * main module, `process.argv[1]`). Pass `import.meta.url` when the job is defined in a module other than the
   * entry point.
   */
  jobModule?: string | URL;
  /**
   * Worker mode: keep the worker threads after a job that closed cleanly and run the process's next job on them
   * (default false: every job starts and ends its own), as a Flink session cluster keeps its task managers between
   * jobs. A kept thread keeps what it compiled, so the next job runs warm code from its first record, and it does not
   * start again. It imports the job module anew (`?weir-job=n`: its top level runs again, the modules it imports stay
   * loaded) with the main thread's environment variables of that moment; the top-level bindings of each job module it
   * ran stay in its memory. Kept threads do not keep the process alive. Jobs located by a job locator never reuse.
   */
  reuseWorkers?: boolean;
  /**
   * Worker mode: the heap limits each worker thread starts with (Node's `Worker` `resourceLimits`: the young and old
   * generations' maximum sizes in MB, the stack size). Default `{ maxYoungGenerationSizeMb: 192 }` (a limit left out
   * keeps Node's default): a young generation that may grow as on Node 24, which on Node 20 means fewer scavenges
   * where state lives seconds of event time (session windows, CEP's partial matches); see docs/performance.md,
   * "Where a worker thread's time goes". Kept workers are reused only by jobs with the same limits.
   */
  workerResourceLimits?: ResourceLimits;
  /**
   * Metrics (default on): `false` turns them off (no sampler, no busy-time clock reads); an object adds reporters
   * (see `weir/prometheus`) or changes the sampling interval.
   */
  metrics?: boolean | MetricRegistryOptions;
  /**
   * Checkpointing, as {@link StreamExecutionEnvironment.enableCheckpointing} (`weir run --checkpoint-dir` sets it
   * for every job it runs; a job's own `enableCheckpointing` call wins).
   */
  checkpointing?: CheckpointingOptions & { readonly intervalMs: number };
  /**
   * Where the job logs restarts, failed checkpoints, checkpoint fallbacks and source errors: any pino-compatible
   * logger (default: structured lines on stderr, see `createLogger`; `$WEIR_LOG_LEVEL`, `$WEIR_LOG_FORMAT`).
   */
  logger?: Logger;
  /**
   * Run the job as one of several processes that share its tasks through Kafka (docs/scale-out.md): `execute()`
   * cuts the job into tasks, joins the job's consumer group and runs the tasks the group gives this process, each
   * committing one Kafka transaction per commit interval, until SIGTERM or SIGINT hand them to the others. Every
   * process of the job runs the same job code with the same `jobId`.
   *
   * @example
   * StreamExecutionEnvironment.create({ cluster: { bootstrapServers: 'broker:9092', jobId: 'orders' } });
   */
  cluster?: ClusterOptions;
}

/**
 * The entry point of every job, as Flink's StreamExecutionEnvironment: create sources, transform streams, then
 * `execute()`.
 *
 * @example
 * const env = StreamExecutionEnvironment.create({ parallelism: 2 });
 * env.fromElements('a', 'b', 'a').keyBy((w) => w).reduce((a, b) => a + b).print();
 * await env.execute('words');
 */
export class StreamExecutionEnvironment {
  private parallelism = 1;
  private maxParallelism = DEFAULT_MAX_PARALLELISM;
  private watermarkInterval = DEFAULT_AUTO_WATERMARK_INTERVAL;
  private watermarkRecords = DEFAULT_AUTO_WATERMARK_RECORDS;
  private watermarkMode: WatermarkEmissionMode = 'deterministic';
  private clock: ProcessingTimeClock;
  private readonly sinks: Transformation[] = [];
  private checkpoints: CheckpointConfig | undefined = undefined;
  private restartStrategy: RestartStrategy | undefined = undefined;
  private stateBackend: StateBackend | undefined = undefined;

  private readonly metricsOptions: boolean | MetricRegistryOptions;
  private workers: number | 'auto' = 1;
  /** Whether the job's code chose the worker count (not a launcher's default). */
  private workersChosen = false;
  private jobModule: string | undefined = undefined;
  private readonly reuseWorkers: boolean;
  private readonly workerResourceLimits: ResourceLimits | undefined;
  private readonly logger: Logger;
  private readonly cluster: ClusterOptions | undefined;

  private constructor(explicit: EnvironmentOptions) {
    // In a worker, the launcher's defaults come with the slot: the worker's globalThis never saw the launcher.
    const launcher = workerSlotData()?.environmentDefaults ?? environmentDefaults().environment;
    const options = { ...launcher, ...explicit };
    this.metricsOptions = options.metrics ?? true;
    this.logger = options.logger ?? defaultLogger();
    this.clock = options.clock ?? new SystemClock();
    if (options.maxParallelism !== undefined) this.setMaxParallelism(options.maxParallelism);
    if (options.parallelism !== undefined) this.setParallelism(options.parallelism);
    if (options.autoWatermarkInterval !== undefined)
      this.setAutoWatermarkInterval(options.autoWatermarkInterval);
    if (options.autoWatermarkRecords !== undefined)
      this.setAutoWatermarkRecords(options.autoWatermarkRecords);
    if (options.watermarkEmission !== undefined) this.setWatermarkEmission(options.watermarkEmission);
    if (options.checkpointing !== undefined)
      this.enableCheckpointing(options.checkpointing.intervalMs, options.checkpointing);
    if (options.workers !== undefined) this.setWorkers(options.workers);
    this.workersChosen = explicit.workers !== undefined;
    if (options.jobModule !== undefined) this.jobModule = String(options.jobModule);
    this.reuseWorkers = options.reuseWorkers === true;
    this.workerResourceLimits = options.workerResourceLimits;
    this.cluster = options.cluster;
  }

  /**
   * Worker threads to run the job's subtasks on: 1 (default) runs everything on this thread, `'auto'` one per core
   * capped by the parallelism. See {@link EnvironmentOptions.workers}.
   *
   * @example
   * StreamExecutionEnvironment.create({ parallelism: 2 }).setWorkers(2);
   */
  setWorkers(workers: number | 'auto'): this {
    if (workers !== 'auto' && !(Number.isInteger(workers) && workers >= 0)) {
      throw new ConfigurationError(`workers must be a whole number >= 0 or 'auto', got ${String(workers)}`);
    }
    this.workers = workers;
    this.workersChosen = true;
    return this;
  }

  /** Whether this code runs in a worker thread of a job in worker mode (its `execute()` runs the worker's share). */
  static isJobWorker(): boolean {
    return workerSlotData() !== undefined;
  }

  /**
   * The worker threads a job of `graph` runs on, or undefined to run on this thread. `location` is where a job
   * locator says the workers find the job (undefined when none is registered or it cannot reach the job).
   */
  private workerSettings(
    graph: StreamGraph,
    jobName: string,
    location: JobLocation | undefined,
  ): WorkerSettings | undefined {
    const requested = this.workers === 'auto' ? availableParallelism() : this.workers;
    const widest = Math.max(...graph.nodes.map((n) => n.parallelism));
    let workers = Math.min(requested, widest);
    const locator = jobLocator();
    if (workers < 2) {
      if (!(requested >= 2 && location !== undefined && locator?.threadsForOneSlot === true))
        return undefined;
      workers = 1;
    }
    if (!this.workersChosen) {
      // Worker threads by a launcher's default only: a job that another thread cannot build or drive stays here.
      // A ManualClock is advanced by the code holding it, on this thread; the workers would run on their own clocks.
      if (!(this.clock instanceof SystemClock)) return undefined;
      if (locator !== undefined && location === undefined && this.jobModule === undefined) return undefined;
    }
    const main = process.argv[1];
    const jobModule =
      this.jobModule ?? location?.module ?? (main !== undefined ? pathToFileURL(main).href : undefined);
    if (jobModule === undefined) {
      throw new ConfigurationError(
        `Job '${jobName}' runs on ${workers} workers, but this process has no main module for them to load: set the environment's jobModule to the module that builds and executes the job`,
      );
    }
    const launcher = environmentDefaults().environment;
    const environmentDefaultsForWorkers = {
      ...(launcher?.parallelism !== undefined ? { parallelism: launcher.parallelism } : {}),
      ...(launcher?.maxParallelism !== undefined ? { maxParallelism: launcher.maxParallelism } : {}),
    };
    return {
      workers,
      jobModule,
      jobName,
      environmentDefaults: environmentDefaultsForWorkers,
      ...(this.jobModule === undefined && location !== undefined ? { location } : {}),
      ...(this.reuseWorkers ? { reuseWorkers: true } : {}),
      ...(this.workerResourceLimits !== undefined ? { resourceLimits: this.workerResourceLimits } : {}),
    };
  }

  static create(options: EnvironmentOptions = {}): StreamExecutionEnvironment {
    return new StreamExecutionEnvironment(options);
  }

  /** Flink's name for {@link create}. */
  static getExecutionEnvironment(options: EnvironmentOptions = {}): StreamExecutionEnvironment {
    return new StreamExecutionEnvironment(options);
  }

  setParallelism(parallelism: number): this {
    checkParallelism('environment default', parallelism, this.maxParallelism);
    this.parallelism = parallelism;
    return this;
  }

  getParallelism(): number {
    return this.parallelism;
  }

  setMaxParallelism(maxParallelism: number): this {
    checkParallelism('environment default', 1, maxParallelism);
    this.maxParallelism = maxParallelism;
    return this;
  }

  getMaxParallelism(): number {
    return this.maxParallelism;
  }

  setAutoWatermarkInterval(intervalMs: number): this {
    if (!(intervalMs >= 0) || !Number.isFinite(intervalMs)) {
      throw new ConfigurationError(`The auto-watermark interval must be >= 0 ms, got ${intervalMs}`);
    }
    this.watermarkInterval = intervalMs;
    return this;
  }

  get autoWatermarkInterval(): number {
    return this.watermarkInterval;
  }

  /** Records between two periodic watermark emissions in deterministic mode. */
  setAutoWatermarkRecords(records: number): this {
    this.watermarkRecords = checkAutoWatermarkRecords(records);
    return this;
  }

  /**
   * How periodic watermark generators are driven: `'deterministic'` (default) or Flink's `'processing-time'`.
   *
   * @example
   * env.setWatermarkEmission('processing-time'); // every autoWatermarkInterval ms, as Flink
   */
  setWatermarkEmission(mode: WatermarkEmissionMode): this {
    this.watermarkMode = checkWatermarkEmissionMode(mode);
    return this;
  }

  /** The periodic watermark emission rule jobs of this environment use (read when a job is built). */
  get watermarkEmission(): WatermarkEmission {
    return {
      mode: this.watermarkMode,
      intervalMs: this.watermarkInterval,
      everyRecords: this.watermarkRecords,
    };
  }

  /**
   * Takes an aligned-barrier checkpoint every `intervalMs` into `options.storage`; a failed job restarts from the
   * latest one (see {@link setRestartStrategy}) and exactly-once sinks commit when a checkpoint completes.
   *
   * @example
   * env.enableCheckpointing(1_000, { storage: './checkpoints', retained: 3, timeoutMs: 30_000 });
   */
  enableCheckpointing(intervalMs: number, options: CheckpointingOptions): this {
    this.checkpoints = checkpointConfig(intervalMs, options);
    return this;
  }

  getCheckpointConfig(): CheckpointConfig | undefined {
    return this.checkpoints;
  }

  /**
   * What happens when a job fails. Default: no restart without checkpointing; with checkpointing, up to 3
   * restarts 1 s apart (Flink restarts forever; a bounded default keeps a deterministic bug from looping).
   *
   * @example
   * env.setRestartStrategy(RestartStrategies.fixedDelay(10, 500));
   */
  setRestartStrategy(strategy: RestartStrategy): this {
    this.restartStrategy = strategy;
    return this;
  }

  /**
   * Where keyed state lives (default: the heap).
   *
   * @example
   * env.setStateBackend(new LmdbStateBackend({ path: '/var/tmp/weir-state' }));
   */
  setStateBackend(backend: StateBackend): this {
    this.stateBackend = backend;
    return this;
  }

  /** The processing-time clock jobs of this environment run on. */
  getClock(): ProcessingTimeClock {
    return this.clock;
  }

  /** A bounded stream of the given elements, in order, without timestamps (parallelism 1). */
  fromElements<T>(...elements: T[]): DataStream<T> {
    return this.fromCollection(elements, 'Elements');
  }

  /** A bounded stream over an iterable (read lazily, parallelism 1). */
  fromCollection<T>(elements: Iterable<T>, name = 'Collection'): DataStream<T> {
    const stream = this.fromSource(new CollectionSource(elements), undefined, name);
    stream.transformation.forceSingleParallelism = true;
    return stream;
  }

  /**
   * A stream over an async iterable (an async generator, a Node readable stream, a paginated API), read lazily
   * with parallelism 1. Pass a function that starts the iterable to make the source replayable from checkpoints.
   *
   * @example
   * env.fromAsyncIterable(async function* () {
   *   for (let page = 1; ; page++) {
   *     const items = await api.list({ page });
   *     if (items.length === 0) return;
   *     yield* items;
   *   }
   * });
   */
  fromAsyncIterable<T>(input: AsyncIterableInput<T>, name = 'Async Iterable'): DataStream<T> {
    const stream = this.fromSource(new AsyncIterableSource(input), undefined, name);
    stream.transformation.forceSingleParallelism = true;
    return stream;
  }

  /**
   * A stream from a source. With a WatermarkStrategy, timestamps and watermarks are assigned in the source
   * subtasks, as Flink's `fromSource(source, strategy, name)`.
   */
  fromSource<T>(
    source: Source<T>,
    watermarkStrategy: WatermarkStrategy<T> | undefined,
    name = 'Source',
  ): DataStream<T> {
    if (source === null || typeof source !== 'object' || typeof source.createReader !== 'function') {
      throw new ConfigurationError(
        `fromSource() needs a Source (an object with createReader), got ${String(source)}`,
      );
    }
    const t = new Transformation('source', name, []);
    t.source = source;
    t.watermarkStrategy = watermarkStrategy;
    t.operatorFactory = () => new SourceOperator(source, watermarkStrategy, this.watermarkEmission);
    return new DataStream<T>(this, t);
  }

  /** @internal Registers a sink; `execute` runs every registered sink's pipeline. */
  addSink(t: Transformation): void {
    this.sinks.push(t);
  }

  /** @internal Two keyed streams connect keyed (each by its own selector), as Flink's ConnectedStreams. */
  connectStreams<A, B>(a: DataStream<A>, b: DataStream<B>): ConnectedStreams<A, B, any> {
    const keyA = (a as Partial<{ keySelector: KeySelector<A, unknown> }>).keySelector;
    const keyB = (b as Partial<{ keySelector: KeySelector<B, unknown> }>).keySelector;
    if (typeof keyA === 'function' && typeof keyB === 'function') {
      return new ConnectedStreams<A, B, unknown>(a, b, [keyA, keyB]);
    }
    return new ConnectedStreams(a, b);
  }

  /** @internal Builds the physical plan without running it (validates the job). */
  buildGraph(extraSinks: readonly Transformation[] = []): StreamGraph {
    const sinks = [...this.sinks, ...extraSinks];
    if (sinks.length === 0) {
      throw new ConfigurationError(
        'No sinks defined in the job: add one with print(), sinkTo() or executeAndCollect()',
      );
    }
    return new StreamGraph(sinks, {
      defaultParallelism: this.parallelism,
      maxParallelism: this.maxParallelism,
    });
  }

  /**
   * Runs every pipeline that ends in a sink, until all bounded sources are exhausted. Rejects with a
   * JobExecutionError naming the operator, subtask and record when a user function fails. The registered
   * pipelines are cleared, so the environment can define and run another job.
   */
  async execute(jobName = 'Weir Job', options: ExecuteOptions = {}): Promise<JobExecutionResult> {
    if (this.cluster !== undefined) {
      const graph = this.buildGraph();
      this.sinks.length = 0;
      // Loaded only in cluster mode, so a job without it never loads the Kafka client.
      const { executeOnCluster } = await import('../execution/cluster/cluster-job.ts');
      const result = executeOnCluster({
        jobName,
        graph,
        cluster: this.cluster,
        clock: this.clock,
        logger: this.logger,
        emission: this.watermarkEmission,
        ...(this.stateBackend === undefined ? {} : { stateBackend: this.stateBackend }),
      });
      environmentDefaults().onClusterJob?.(jobName, this.cluster, result);
      return result;
    }
    const client = await this.executeAsync(jobName, options);
    environmentDefaults().onExecuteWaits?.(client);
    return client.result;
  }

  /**
   * Starts the job and returns at once with a {@link JobClient}: its `result`, savepoints on request, `cancel()`.
   * Runs with checkpoints and restarts as configured.
   *
   * @example
   * const client = await env.executeAsync('orders');
   * const savepoint = await client.triggerSavepoint('./savepoints');
   * await client.cancel();
   */
  async executeAsync(jobName = 'Weir Job', explicit: ExecuteOptions = {}): Promise<JobClient> {
    if (this.cluster !== undefined)
      throw new ConfigurationError(
        `Job '${jobName}' runs in cluster mode: start it with execute(), which runs until SIGTERM or SIGINT`,
      );
    const defaults = environmentDefaults();
    const options = { ...defaults.execute, ...explicit };
    const graph = this.buildGraph();
    this.sinks.length = 0;
    const slot = workerSlotData();
    let threads: WorkerSettings | undefined = undefined;
    if (slot !== undefined) {
      // A worker of a job in worker mode: run this worker's share; the main thread owns the job's life cycle. A
      // located job's earlier execute() calls run here on the worker's thread, as they ran before it on the main.
      if (slot.location === undefined || jobLocator()?.attaches() !== false) {
        return runWorkerSlot({ jobName, graph, clock: this.clock, stateBackend: this.stateBackend });
      }
    } else {
      threads = this.workerSettings(graph, jobName, jobLocator()?.locate());
    }
    const restoreFrom =
      options.restoreFrom ??
      (options.savepointPath !== undefined ? loadSavepoint(options.savepointPath, this.logger) : undefined);
    const strategy =
      this.restartStrategy ??
      (this.checkpoints !== undefined
        ? RestartStrategies.fixedDelay(3, 1_000)
        : RestartStrategies.noRestart());
    const metrics = this.metricsOptions;
    const registry = metrics === false ? undefined : new MetricRegistry(metrics === true ? {} : metrics);
    const running = new RunningJob(jobName, graph, registry);
    // Loaded only when asked for, so a job without a web UI never loads the server.
    const web =
      options.webUi === undefined
        ? undefined
        : await (await import('../web/web-server.ts')).WebServer.forJob(options.webUi);
    web?.addJob(running);
    registry?.start();
    const { control, result } = startFaultTolerantJob({
      running,
      jobName,
      graph,
      clock: this.clock,
      checkpoints: this.checkpoints,
      restartStrategy: strategy,
      stateBackend: this.stateBackend,
      restoreFrom,
      allowNonRestoredState: options.allowNonRestoredState === true,
      ...(threads !== undefined ? { threads } : {}),
      logger: this.logger,
    });
    const settled = result.finally(async () => {
      registry?.close();
      await web?.jobEnded();
    });
    const client = new JobClient(
      jobName,
      settled,
      control,
      running,
      web?.url,
      web === undefined ? undefined : () => web.close(true),
    );
    if (options.savepointOnSigterm !== undefined)
      stopWithSavepointOnSigterm(client, options.savepointOnSigterm, this.logger);
    defaults.onJobStart?.(client);
    return client;
  }
}

/** Installs a SIGTERM handler for the life of a job: stop with a savepoint, or cancel if that fails. */
function stopWithSavepointOnSigterm(client: JobClient, dir: string, logger: Logger): void {
  const job = client.jobName;
  const onSigterm = (): void => {
    logger.info({ job }, `SIGTERM: stopping job '${job}' with a savepoint under ${dir}`);
    client.stopWithSavepoint(dir).then(
      (path) => logger.info({ job }, `job '${job}' stopped with savepoint ${path}`),
      (error: unknown) => {
        logger.warn(
          { job },
          `job '${job}': the savepoint on SIGTERM failed (${(error as Error)?.message ?? String(error)}); cancelling`,
        );
        return client.cancel();
      },
    );
  };
  process.once('SIGTERM', onSigterm);
  const remove = (): void => void process.off('SIGTERM', onSigterm);
  client.result.then(remove, remove);
}
