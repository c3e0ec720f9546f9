// The benchmark runner behind `npm run bench` (quick suite), `npm run bench -- --smoke` (CI: tiny sizes, every
// Node system and workload once, never Java) and `npm run bench:all` (= --with-flink). It measures each
// (system, workload) cell, verifies every output against the limit loop BEFORE reporting, and writes
// bench/results/latest.{json,md,svg}. Method and definitions: docs/performance.md.
//
// Options: --events N (default 500,000; 2,000,000 with --with-flink)  --cell-budget SECONDS (timed runs per cell;
//          default 6 for the quick suite unless --events is given; none with --with-flink)
//          --runs N  --warmup N  --system limit,rxjs,weir  --workload id,id  --seed N
//          --keys N (distinct keys of the generic stream, workloads 1, 2, 3, 6, 7; default 10,000)
//          --bid-keys N (auctions and bidders of the bid stream: the keys of hot items and sessions, 4 and 5, and
//          q7's bids; default 10,000 auctions and 100,000 bidders; Node systems only, not with --with-flink)
//          --lmdb-cache N | P% (weir-lmdb's cache per subtask, in entries or in percent of --keys; default the
//          backend's, 100,000 entries: 10 % of 1,000,000 keys)
//          --parallelism N (passed to Node systems)  --in-process  --no-micro  --out DIR
//          --with-flink  --flink-events N  --flink-parallelism 1,2  --flink-runs N
//          --flink-cell-budget SECONDS (default none)  --flink-object-reuse  --no-flink-rocksdb
//          --flink-parallelism none (no Flink heap cells: with --keys, flink-rocksdb-p1 beside weir-lmdb alone)
//          --checkpoint-every MS (the durable-state workloads again with a checkpoint every MS ms: weir and
//          weir-lmdb as weir-checkpointed and weir-lmdb-checkpointed, Flink p1 on the heap and on RocksDB as
//          flink-checkpointed-p1 and flink-rocksdb-checkpointed-p1; on by default with --with-flink at 1,000 ms,
//          and at 10 ms with --smoke)  --no-checkpoint
//          --checkpoint-state MB,MB (one checkpoint of that much keyed state in Weir, heap and LMDB, and with Flink in
//          Flink, heap and RocksDB: its duration and size; default 64 with --with-flink, 1 with --smoke; 1024 for the
//          1 GB figure)  --checkpoint-state-runs N (default 3)  --no-checkpoint-state
// With --with-flink every system runs the same number of events (--flink-events defaults to --events) and no
// cell budget cuts a cell short unless one is given, so Weir and Flink are compared at equal sizes.
//          --kafka (the Kafka -> Kafka comparison; on by default with --with-flink)  --no-kafka
//          --kafka-records N  --kafka-runs N  --kafka-warmup N  --kafka-partitions N  --kafka-parallelism N
//          --kafka-checkpoint-ms MS  --kafka-guarantee exactly-once,at-least-once  --kafka-latency-records N
//          --kafka-latency-rate N  --kafka-no-latency
//          --latency (the latency benchmark, bench/latency/main.ts, after the rest; off by default, ~10 min)
//          --no-latency (leave the latency smoke run out of --smoke)
//          --keep-others (keep the cells of --out's latest.json that this run does not measure: re-measure a few
//          cells, e.g. `--workload cep --keep-others`, and the report still holds every row, each with its end time
//          and load average)
// The Kafka comparison uses WEIR_KAFKA_BOOTSTRAP, or this checkout's running broker, or starts one and stops it
// after; when no broker can start it is skipped with the reason, and the rest of the run is unaffected.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseKafkaOptions, type KafkaCliOptions } from './kafka/kafka-options.ts';
import { MICRO_KEYS } from './micro/value-state-bytes.ts';
import { runCheckpointState } from './runner/checkpoint-state.ts';
import { buildFlink, detectToolchain, flinkVersion, runFlink } from './runner/flink-runner.ts';
import type { Measurement } from './runner/measurement.ts';
import type { CellSpec } from './runner/measure.ts';
import { runCellInChild, runCellInProcess } from './runner/node-runner.ts';
import { type MicroResult, type ReportMeta, renderMarkdown } from './runner/report-markdown.ts';
import { readKeyCurve } from './runner/report-key-curve-svg.ts';
import { renderSvg } from './runner/report-svg.ts';
import { CHECKPOINTED_SYSTEMS, NODE_SYSTEM_NAMES } from './runner/systems.ts';
import { computeReference, findMismatches } from './runner/verify.ts';
import type { CheckpointStateResult } from './weir/checkpoint-job.ts';
import { DEFAULT_KEYS, DURABLE_STATE_WORKLOADS, WORKLOAD_IDS, type WorkloadId } from './workloads/params.ts';

interface Options {
  smoke: boolean;
  events: number;
  runs: number;
  warmup: number;
  systems: string[];
  workloads: WorkloadId[];
  seed: number;
  keys: number;
  /** The bid stream's auctions and bidders (`--bid-keys`); undefined: the generator's defaults. */
  bidKeys: number | undefined;
  /** weir-lmdb's cache in entries per subtask; undefined: the backend's default. */
  lmdbCacheEntries: number | undefined;
  parallelism: number;
  inProcess: boolean;
  micro: boolean;
  microKeys: number;
  out: string;
  withFlink: boolean;
  flinkEvents: number;
  flinkParallelism: number[];
  flinkRuns: number;
  budgetSeconds: number;
  flinkBudgetSeconds: number;
  flinkObjectReuse: boolean;
  /** Flink on embedded RocksDB beside weir-lmdb, for the durable-state workloads (on unless --no-flink-rocksdb). */
  flinkRocksdb: boolean;
  /** The checkpointed cells' interval in ms, or undefined when they are not run. */
  checkpointEveryMs: number | undefined;
  /** The checkpoint-state benchmark's sizes in MB (empty: not run) and runs per size. */
  checkpointStateMb: number[];
  checkpointStateRuns: number;
  /** The Kafka comparison's settings, or undefined when it is not run. */
  kafka: KafkaCliOptions | undefined;
  /**
   * The latency benchmark: with --smoke its smoke run (unless --no-latency), so it cannot rot; otherwise only with
   * --latency, in full (bench:all takes long enough without it).
   */
  latency: 'smoke' | 'full' | 'none';
  /** Keep the cells of --out's latest.json that this run does not measure. */
  keepOthers: boolean;
}

interface Results {
  readonly meta: ReportMeta;
  readonly measurements: Measurement[];
  readonly micro: MicroResult[];
  readonly checkpointState?: CheckpointStateResult[];
}

function readEarlierResults(out: string): Results | undefined {
  const file = join(out, 'latest.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as Results;
}

const HERE = fileURLToPath(new URL('.', import.meta.url));

function parseOptions(argv: readonly string[]): Options {
  const has = (name: string): boolean => argv.includes(`--${name}`);
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const num = (name: string, fallback: number): number => {
    const raw = value(name);
    const parsed = raw === undefined ? fallback : Number(raw);
    if (Number.isNaN(parsed)) throw new Error(`--${name} needs a number, got ${raw}`);
    return parsed;
  };
  const list = (name: string, fallback: readonly string[]): string[] =>
    value(name) === 'none' ? [] : (value(name)?.split(',') ?? [...fallback]);
  const smoke = has('smoke');
  const workloads = list('workload', WORKLOAD_IDS) as WorkloadId[];
  for (const w of workloads)
    if (!WORKLOAD_IDS.includes(w))
      throw new Error(`unknown workload ${w}; known: ${WORKLOAD_IDS.join(', ')}`);
  const withFlink = has('with-flink') && !smoke; // --smoke never needs Java
  const events = num('events', smoke ? 20_000 : withFlink ? 2_000_000 : 500_000);
  const out =
    value('out') ?? (smoke ? mkdtempSync(join(tmpdir(), 'weir-bench-smoke-')) : join(HERE, 'results'));
  // --smoke never needs a broker either.
  const kafka = !smoke && !has('no-kafka') && (has('kafka') || withFlink);
  // Checkpointed cells: bench:all runs them at 1 s; --smoke at 10 ms, so a run checkpoints and the path cannot rot.
  const checkpointEveryMs = has('no-checkpoint')
    ? undefined
    : value('checkpoint-every') !== undefined
      ? num('checkpoint-every', 1_000)
      : smoke
        ? 10
        : withFlink
          ? 1_000
          : undefined;
  if (checkpointEveryMs !== undefined && !(checkpointEveryMs >= 1))
    throw new Error(`--checkpoint-every needs a number of ms >= 1, got ${checkpointEveryMs}`);
  const checkpointStateMb = has('no-checkpoint-state')
    ? []
    : list('checkpoint-state', smoke ? ['1'] : withFlink ? ['64'] : []).map(Number);
  for (const mb of checkpointStateMb)
    if (!(mb > 0))
      throw new Error(`--checkpoint-state needs sizes in MB above 0, got ${value('checkpoint-state')}`);
  const systems = withCheckpointedTwins(list('system', NODE_SYSTEM_NAMES), checkpointEveryMs !== undefined);
  return {
    smoke,
    events,
    runs: num('runs', smoke ? 1 : 5),
    warmup: num('warmup', smoke ? 0 : 1),
    systems,
    workloads,
    seed: num('seed', 42),
    keys: num('keys', DEFAULT_KEYS),
    bidKeys: bidKeys(value('bid-keys'), withFlink),
    lmdbCacheEntries: lmdbCache(value('lmdb-cache'), num('keys', DEFAULT_KEYS)),
    parallelism: num('parallelism', 1),
    inProcess: smoke || has('in-process'),
    micro: !has('no-micro'),
    microKeys: num('micro-keys', smoke ? 10_000 : MICRO_KEYS),
    out,
    withFlink,
    flinkEvents: num('flink-events', events),
    flinkParallelism: list('flink-parallelism', ['1', '2']).map(Number),
    flinkRuns: num('flink-runs', 5),
    // A budget cuts a slow cell to fewer events: fine for the quick suite, never when sizes must be equal.
    budgetSeconds: num('cell-budget', value('events') === undefined && !smoke && !withFlink ? 6 : Infinity),
    flinkBudgetSeconds: num('flink-cell-budget', Infinity),
    flinkObjectReuse: has('flink-object-reuse'),
    flinkRocksdb: !has('no-flink-rocksdb'),
    checkpointEveryMs,
    checkpointStateMb,
    checkpointStateRuns: num('checkpoint-state-runs', smoke ? 1 : 3),
    kafka: kafka ? { ...parseKafkaOptions(argv, 'kafka-'), flink: withFlink, out } : undefined,
    keepOthers: has('keep-others'),
    latency: has('no-latency') ? 'none' : smoke ? 'smoke' : has('latency') ? 'full' : 'none',
  };
}

/**
 * With checkpointed cells on, each of weir and weir-lmdb among the systems gets its checkpointed twin right after it
 * (unless already listed), so the report shows the two side by side.
 */
function withCheckpointedTwins(systems: readonly string[], on: boolean): string[] {
  if (!on) return [...systems];
  const out: string[] = [];
  for (const system of systems) {
    out.push(system);
    for (const [twin, base] of Object.entries(CHECKPOINTED_SYSTEMS))
      if (base === system && !systems.includes(twin)) out.push(twin);
  }
  return out;
}

/** `--bid-keys`: Flink's generator has the bid stream's counts fixed, so only Node systems can run another. */
function bidKeys(raw: string | undefined, withFlink: boolean): number | undefined {
  if (raw === undefined) return undefined;
  if (withFlink)
    throw new Error('--bid-keys is for Node systems only: the Flink generator has fixed bid keys');
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1_000)
    throw new Error(`--bid-keys needs a whole number >= 1000, got ${raw}`);
  return n;
}

/** `--lmdb-cache`: a number of entries, or a percentage of the keys (`10%` of 1,000,000 keys is 100,000). */
function lmdbCache(raw: string | undefined, keys: number): number | undefined {
  if (raw === undefined) return undefined;
  const percent = raw.endsWith('%');
  const n = Number(percent ? raw.slice(0, -1) : raw);
  const entries = percent ? Math.ceil((keys * n) / 100) : n;
  if (!Number.isInteger(entries) || entries < 1)
    throw new Error(`--lmdb-cache needs a positive number of entries or a percentage, got ${raw}`);
  return entries;
}

const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

function describe(m: Measurement): string {
  if (m.status !== 'ok' || m.eventsPerSecond === undefined)
    return `${m.status}${m.note === undefined ? '' : `: ${m.note}`}`;
  const r = m.eventsPerSecond;
  return `${(r.median / 1e6).toFixed(2)} M events/s (min ${(r.min / 1e6).toFixed(2)}, max ${(r.max / 1e6).toFixed(2)}), ${m.runs[0]?.count} outputs`;
}

async function runMicroInChild(system: string, keys: number): Promise<MicroResult[]> {
  const script = join(HERE, 'micro', 'value-state-bytes.ts');
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', script, '--keys', String(keys), '--system', system],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('close', () => {
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      resolve(
        line === undefined
          ? [{ system, keys, note: 'failed' }]
          : (JSON.parse(line.slice(7)) as MicroResult[]),
      );
    });
  });
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const started = performance.now();
  const loadAverage = loadavg();
  log(
    `weir bench${options.smoke ? ' --smoke' : ''}: ${options.events.toLocaleString('en-US')} events, ${options.keys.toLocaleString('en-US')} keys, ${options.bidKeys === undefined ? '' : `${options.bidKeys.toLocaleString('en-US')} auctions and bidders, `}${options.lmdbCacheEntries === undefined ? '' : `LMDB cache ${options.lmdbCacheEntries.toLocaleString('en-US')} entries, `}${options.warmup} warm-up + ${options.runs} runs, ` +
      `systems ${options.systems.join(', ')}${options.withFlink ? ', flink' : ''}; ${options.inProcess ? 'in-process' : 'one child process per cell'}`,
  );
  if (loadAverage[0] !== undefined && loadAverage[0] > cpus().length * 0.5) {
    log(
      `warning: load average ${loadAverage[0].toFixed(2)} on ${cpus().length} cores: other work is running, expect noisy numbers`,
    );
  }

  const measurements: Measurement[] = [];
  for (const workload of options.workloads) {
    for (const system of options.systems) {
      // weir-lmdb measures durable state, and checkpoints are measured on the same three workloads: only the
      // workloads Flink also runs on RocksDB.
      const checkpointed = CHECKPOINTED_SYSTEMS[system] !== undefined;
      if ((system === 'weir-lmdb' || checkpointed) && !DURABLE_STATE_WORKLOADS.has(workload)) continue;
      const spec: CellSpec = {
        system,
        workload,
        events: options.events,
        seed: options.seed,
        keys: options.keys,
        ...(options.bidKeys !== undefined ? { bidKeys: options.bidKeys } : {}),
        parallelism: options.parallelism,
        warmup: options.warmup,
        runs: options.runs,
        // The probe measures the heap; LMDB keeps its state in files (its heap figure would be the cache), and
        // checkpointing does not change the state a heap backend holds.
        probe: system !== 'weir-lmdb' && !checkpointed,
        budgetSeconds: options.budgetSeconds,
        ...(options.lmdbCacheEntries !== undefined ? { lmdbCacheEntries: options.lmdbCacheEntries } : {}),
        ...(checkpointed && options.checkpointEveryMs !== undefined
          ? { checkpointIntervalMs: options.checkpointEveryMs }
          : {}),
      };
      const measured = options.inProcess ? await runCellInProcess(spec) : await runCellInChild(spec);
      const m: Measurement = {
        ...measured,
        endedAt: new Date().toISOString(),
        ...(loadavg()[0] === undefined ? {} : { loadAverage: loadavg()[0] }),
      };
      measurements.push(m);
      log(`  ${system.padEnd(6)} ${workload.padEnd(16)} ${describe(m)}`);
    }
  }

  let flinkMeta: ReportMeta['flink'];
  let flinkSkipped: string | undefined;
  if (options.withFlink) {
    const toolchain = detectToolchain();
    if (typeof toolchain === 'string') {
      flinkSkipped = toolchain;
      log(`FLINK SKIPPED: ${toolchain}`);
    } else {
      log(`flink: ${toolchain.java}; ${toolchain.maven}; building bench/flink`);
      const build = buildFlink(log);
      log(
        `flink: Maven build took ${build.seconds.toFixed(1)} s${build.fetched ? ' (fetched dependencies)' : ' (offline)'}`,
      );
      const flink = await runFlink(
        {
          events: options.flinkEvents,
          seed: options.seed,
          keys: options.keys,
          runs: options.flinkRuns,
          warmup: 1,
          parallelisms: options.flinkParallelism,
          workloads: options.workloads,
          probe: true,
          budgetSeconds: options.flinkBudgetSeconds,
          objectReuse: options.flinkObjectReuse,
          rocksdb: options.flinkRocksdb,
          ...(options.checkpointEveryMs === undefined
            ? {}
            : { checkpointEveryMs: options.checkpointEveryMs }),
        },
        log,
      );
      measurements.push(...flink);
      flinkMeta = {
        version: flinkVersion(),
        events: options.flinkEvents,
        buildSeconds: build.seconds,
        fetched: build.fetched,
        java: toolchain.java,
      };
    }
  } else if (!options.smoke) {
    flinkSkipped = 'not run (use npm run bench:all to add Flink)';
  }

  let checkpointState: CheckpointStateResult[] = [];
  if (options.checkpointStateMb.length > 0) {
    log(
      `checkpoint-state: ${options.checkpointStateMb.join(', ')} MB of keyed state, ${options.checkpointStateRuns} run(s) each`,
    );
    checkpointState = await runCheckpointState(
      {
        sizesMb: options.checkpointStateMb,
        runs: options.checkpointStateRuns,
        flink: flinkMeta !== undefined,
        inProcess: options.inProcess,
      },
      log,
    );
  }

  // Verify before reporting anything.
  const reference = await computeReference(measurements, options.seed, options.keys, options.bidKeys);
  const mismatches = findMismatches(measurements, reference);
  if (mismatches.length > 0) {
    process.stderr.write(
      `\n!!! CHECKSUM MISMATCH: systems disagree; no results written !!!\n${mismatches.map((m) => `  ${m}`).join('\n')}\n`,
    );
    return 1;
  }
  log(`verified: every run of every system matches the limit's count and checksum`);

  let micro: MicroResult[] = [];
  if (options.micro) {
    for (const system of options.systems) {
      if (system === 'weir-lmdb') continue; // the micro-benchmark measures heap bytes per key
      const results = options.inProcess
        ? await (await import('./micro/value-state-bytes.ts')).runMicro([system], options.microKeys)
        : await runMicroInChild(system, options.microKeys);
      micro = micro.concat(results);
    }
    for (const r of micro)
      log(
        `  micro ValueState<number> ${r.system}: ${r.bytesPerKey === undefined ? r.note : `${r.bytesPerKey.toFixed(1)} bytes/key`} (${r.keys.toLocaleString('en-US')} keys)`,
      );
  }

  // --keep-others: the cells this run did not measure stay as the earlier run in --out measured them (each with
  // its own end time and load), so a few cells can be measured again without re-running the whole suite.
  const earlier = options.keepOthers ? readEarlierResults(options.out) : undefined;
  if (earlier !== undefined) {
    const measured = new Set(measurements.map((m) => `${m.system}/${m.workload}`));
    measurements.push(...earlier.measurements.filter((m) => !measured.has(`${m.system}/${m.workload}`)));
    if (micro.length === 0) micro = earlier.micro;
    if (checkpointState.length === 0) checkpointState = earlier.checkpointState ?? [];
    if (flinkMeta === undefined && earlier.meta.flink !== undefined) {
      flinkMeta = earlier.meta.flink;
      flinkSkipped = undefined;
    }
  }
  const order = [
    ...new Set(withCheckpointedTwins([...NODE_SYSTEM_NAMES, ...options.systems], true)),
    ...new Set([...options.flinkParallelism, 1, 2].map((p) => `flink-p${p}`)),
    'flink-checkpointed-p1',
    'flink-rocksdb-p1',
    'flink-rocksdb-checkpointed-p1',
  ];
  const rank = (system: string): number => {
    const i = order.indexOf(system);
    return i < 0 ? order.length : i;
  };
  measurements.sort(
    (a, b) =>
      WORKLOAD_IDS.indexOf(a.workload) - WORKLOAD_IDS.indexOf(b.workload) || rank(a.system) - rank(b.system),
  );
  const meta: ReportMeta = {
    date: new Date().toISOString(),
    node: process.versions.node,
    cpus: cpus().length,
    loadAverage,
    nodeEvents: options.events,
    keys: options.keys,
    runs: options.runs,
    warmup: options.warmup,
    childProcesses: !options.inProcess,
    ...(options.checkpointEveryMs === undefined ? {} : { checkpointEveryMs: options.checkpointEveryMs }),
    ...(flinkMeta === undefined ? {} : { flink: flinkMeta }),
    ...(flinkSkipped === undefined ? {} : { flinkSkipped }),
  };
  const markdown = renderMarkdown(meta, measurements, micro, checkpointState);
  mkdirSync(options.out, { recursive: true });
  writeFileSync(
    join(options.out, 'latest.json'),
    `${JSON.stringify({ meta, measurements, micro, checkpointState }, null, 2)}\n`,
  );
  writeFileSync(join(options.out, 'latest.md'), markdown);
  writeFileSync(join(options.out, 'latest.svg'), renderSvg(measurements, readKeyCurve(options.out)));
  log(`\n${markdown}`);
  log(
    `wrote ${join(options.out, 'latest.{json,md,svg}')} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  let kafkaFailed = false;
  if (options.kafka !== undefined) {
    const kafka = options.kafka;
    log(`\nkafka: Kafka -> keyed running total -> Kafka${kafka.flink ? ', Weir and Flink' : ', Weir only'}`);
    // Loaded only here, so runs without Kafka (the CI smoke run) never load the connector.
    const { withBenchBroker } = await import('./kafka/kafka-broker.ts');
    const { runKafkaBench } = await import('./kafka/main.ts');
    try {
      const skipped = await withBenchBroker(log, async (servers) => {
        await runKafkaBench(servers, kafka);
      });
      if (skipped !== undefined) log(`KAFKA SKIPPED: ${skipped}`);
    } catch (error) {
      kafkaFailed = true;
      process.stderr.write(`\nkafka comparison failed: ${String(error)}\n`);
    }
  }

  let latencyFailed = false;
  if (options.latency !== 'none') {
    log(`\nlatency: end-to-end latency at fixed input rates${options.latency === 'smoke' ? ' (smoke)' : ''}`);
    // Loaded only here: the latency jobs are not needed by the rest of the suite.
    const { parseLatencyOptions, runLatencyBench } = await import('./latency/main.ts');
    const latencyArgs = options.latency === 'smoke' ? ['--smoke', '--out', options.out] : [];
    latencyFailed = (await runLatencyBench(parseLatencyOptions(latencyArgs))) !== 0;
  }

  const broken = measurements.filter((m) => m.status === 'failed' || m.status === 'unavailable');
  if (broken.length > 0) {
    process.stderr.write(
      `\n${broken.length} cell(s) failed:\n${broken.map((m) => `  ${m.system} ${m.workload}: ${m.note}`).join('\n')}\n`,
    );
    return 1;
  }
  return kafkaFailed || latencyFailed ? 1 : 0;
}

process.exitCode = await main();
