// Builds and runs the Flink comparison (bench/flink) when Java and Maven are present: `mvn -o package`
// first (no network once ~/.m2 holds Flink's jars), falling back to an online `mvn package` that fetches
// them (the first fetch took 30 s here), then one JVM that runs every workload at each parallelism.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { DURABLE_STATE_WORKLOADS, type WorkloadId } from '../workloads/params.ts';
import { FLINK_DIR, runFlinkMain } from './flink-main.ts';
import type { Measurement, RunSample } from './measurement.ts';
import { spread } from './stats.ts';

export interface FlinkToolchain {
  readonly java: string;
  readonly maven: string;
}

/** The Java and Maven versions, or a sentence saying which is missing. */
export function detectToolchain(): FlinkToolchain | string {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (java.error !== undefined || java.status !== 0)
    return 'Java is not installed (no `java` on PATH): Flink is skipped.';
  const maven = spawnSync('mvn', ['-v', '-B'], { encoding: 'utf8' });
  if (maven.error !== undefined || maven.status !== 0)
    return 'Maven is not installed (no `mvn` on PATH): Flink is skipped.';
  return {
    java: (java.stderr.split('\n')[0] ?? '').trim(),
    // Maven colours its banner even with -B; drop the ANSI escapes (ESC is char code 27).
    maven: (maven.stdout.split('\n')[0] ?? '')
      .split(String.fromCharCode(27))
      .map((part) => part.replace(/^\[[0-9;]*m/, ''))
      .join('')
      .trim(),
  };
}

export function flinkVersion(): string {
  const pom = readFileSync(`${FLINK_DIR}pom.xml`, 'utf8');
  return /<flink\.version>([^<]+)<\/flink\.version>/.exec(pom)?.[1] ?? 'unknown';
}

export interface FlinkBuild {
  readonly seconds: number;
  /** True when the offline build failed and Maven had to fetch from the registry. */
  readonly fetched: boolean;
}

/** Newest modification time under `path` (a file or a folder), in ms. */
function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

export function buildFlink(log: (line: string) => void): FlinkBuild {
  const start = performance.now();
  // Maven takes 5-25 s even with nothing to do; skip it when the build output is newer than the sources.
  // (Maven rewrites classpath.txt only when it changes, so compiled classes carry the build time.)
  const stamp = `${FLINK_DIR}target/classpath.txt`;
  const classes = `${FLINK_DIR}target/classes`;
  if (
    existsSync(stamp) &&
    existsSync(classes) &&
    Math.max(statSync(stamp).mtimeMs, newestMtime(classes)) >
      Math.max(newestMtime(`${FLINK_DIR}src`), newestMtime(`${FLINK_DIR}pom.xml`))
  ) {
    log('bench/flink: build is up to date');
    return { seconds: 0, fetched: false };
  }
  const offline = spawnSync('mvn', ['-q', '-B', '-o', 'package'], { cwd: FLINK_DIR, encoding: 'utf8' });
  if (offline.status === 0) return { seconds: (performance.now() - start) / 1000, fetched: false };
  log(
    'bench/flink: offline Maven build failed (first run?), fetching Flink from Maven Central: mvn -q package',
  );
  const online = spawnSync('mvn', ['-q', '-B', 'package'], { cwd: FLINK_DIR, encoding: 'utf8' });
  if (online.status !== 0) {
    throw new Error(`mvn package failed in bench/flink:\n${online.stdout}\n${online.stderr}`);
  }
  return { seconds: (performance.now() - start) / 1000, fetched: true };
}

export interface FlinkOptions {
  readonly events: number;
  readonly seed: number;
  /** The generic stream's key count (Main.java --keys). */
  readonly keys: number;
  readonly runs: number;
  readonly warmup: number;
  readonly parallelisms: readonly number[];
  readonly workloads: readonly WorkloadId[];
  readonly probe: boolean;
  /** Seconds the timed runs of one cell may take together (see Main.java --budget-seconds). */
  readonly budgetSeconds: number;
  readonly objectReuse: boolean;
  /** Also run the durable-state workloads at parallelism 1 on RocksDB (system flink-rocksdb-p1). */
  readonly rocksdb: boolean;
  /**
   * Also run the durable-state workloads at parallelism 1 with a checkpoint every this many ms, on the heap
   * (flink-checkpointed-p1) and, with `rocksdb`, on RocksDB (flink-rocksdb-checkpointed-p1).
   */
  readonly checkpointEveryMs?: number;
}

interface FlinkLine {
  type: 'run' | 'probe' | 'memory';
  system?: string;
  parallelism: number;
  workload: WorkloadId;
  warmup?: boolean;
  events?: number;
  count?: number;
  checksum?: number;
  netMs?: number;
  wallMs?: number;
  stateBytesPerKey?: number;
  stateKeys?: number;
  rssPeakBytes?: number;
  heapPeakBytes?: number;
  checkpoints?: number;
}

/** Runs bench/flink's Main and turns its JSON lines into one Measurement per (parallelism, workload). */
export async function runFlink(options: FlinkOptions, log: (line: string) => void): Promise<Measurement[]> {
  const args = [
    '--events',
    String(options.events),
    '--seed',
    String(options.seed),
    '--keys',
    String(options.keys),
    '--runs',
    String(options.runs),
    '--warmup',
    String(options.warmup),
    '--parallelism',
    options.parallelisms.length === 0 ? 'none' : options.parallelisms.join(','),
    '--workloads',
    options.workloads.join(','),
    ...(options.probe ? ['--probe'] : []),
    ...(Number.isFinite(options.budgetSeconds) ? ['--budget-seconds', String(options.budgetSeconds)] : []),
    ...(options.objectReuse ? ['--object-reuse'] : []),
    ...(options.rocksdb ? ['--rocksdb'] : []),
    ...(options.checkpointEveryMs === undefined
      ? []
      : ['--checkpoint-every', String(options.checkpointEveryMs)]),
  ];
  const ended = new Map<string, CellEnd>();
  const lines = await runFlinkMain<FlinkLine>('Main', args, (line) => {
    // One JVM runs every cell in turn: a cell ended at its last line.
    ended.set(`${line.system}/${line.workload}`, {
      endedAt: new Date().toISOString(),
      loadAverage: loadavg()[0],
    });
    if (line.type !== 'run') return;
    const rate =
      line.netMs !== undefined && line.events !== undefined ? line.events / line.netMs / 1000 : NaN;
    log(
      `  ${line.system ?? `flink-p${line.parallelism}`} ${line.workload}${line.warmup === true ? ' (warm-up)' : ''}: ${rate.toFixed(2)} M events/s, net ${line.netMs} ms, wall ${Math.round(line.wallMs ?? 0)} ms${line.checkpoints === undefined ? '' : `, ${line.checkpoints} checkpoints`}`,
    );
  });
  return toMeasurements(lines, options, ended);
}

interface CellEnd {
  readonly endedAt: string;
  readonly loadAverage: number | undefined;
}

function toMeasurements(
  lines: readonly FlinkLine[],
  options: FlinkOptions,
  ended: ReadonlyMap<string, CellEnd>,
): Measurement[] {
  const out: Measurement[] = [];
  const cells: { system: string; parallelism: number }[] = options.parallelisms.map((p) => ({
    system: `flink-p${p}`,
    parallelism: p,
  }));
  const durableOnly = new Set<string>();
  const durable = (system: string): void => {
    cells.push({ system, parallelism: 1 });
    durableOnly.add(system);
  };
  if (options.checkpointEveryMs !== undefined) durable('flink-checkpointed-p1');
  if (options.rocksdb) durable('flink-rocksdb-p1');
  if (options.rocksdb && options.checkpointEveryMs !== undefined) durable('flink-rocksdb-checkpointed-p1');
  for (const { system, parallelism } of cells) {
    for (const workload of options.workloads) {
      if (durableOnly.has(system) && !DURABLE_STATE_WORKLOADS.has(workload)) continue;
      const mine = lines.filter((l) => l.system === system && l.workload === workload);
      const runs: RunSample[] = mine
        .filter((l) => l.type === 'run' && l.warmup !== true)
        .map((l) => ({
          ms: l.netMs ?? NaN,
          count: l.count ?? NaN,
          checksum: l.checksum ?? NaN,
          events: l.events ?? NaN,
          ...(l.checkpoints === undefined ? {} : { checkpoints: l.checkpoints }),
        }));
      const probe = mine.find((l) => l.type === 'probe');
      const memory = mine.find((l) => l.type === 'memory');
      const events = runs[0]?.events ?? options.events;
      const end = ended.get(`${system}/${workload}`);
      out.push({
        system,
        workload,
        status: 'ok',
        note:
          'events/s over the job net runtime (excludes job submission, includes task deployment)' +
          (events < options.events
            ? `; reduced to ${events} events to fit the ${options.budgetSeconds} s cell budget`
            : ''),
        events,
        parallelism,
        runs,
        eventsPerSecond: spread(runs.map((r) => (r.events / Math.max(r.ms, 1)) * 1000)),
        ...(memory?.rssPeakBytes === undefined ? {} : { rssPeakBytes: memory.rssPeakBytes }),
        ...(memory?.heapPeakBytes === undefined ? {} : { heapPeakBytes: memory.heapPeakBytes }),
        ...(probe?.stateBytesPerKey === undefined
          ? {}
          : { stateBytesPerKey: probe.stateBytesPerKey, stateKeys: probe.stateKeys ?? 0 }),
        ...(end === undefined ? {} : { endedAt: end.endedAt }),
        ...(end?.loadAverage === undefined ? {} : { loadAverage: end.loadAverage }),
      });
    }
  }
  return out;
}
