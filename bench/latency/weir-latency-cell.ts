// Weir's side of the latency benchmark for one workload: an unpaced run for the maximum rate (after a warm-up), then
// the paced runs at each rate. Run in a child process per workload by bench/latency/main.ts, which passes the spec
// as JSON and reads the "RESULT " line; in-process with --smoke.
import { defaultParams } from '../workloads/params.ts';
import { LatencyRecorder, summarise } from './latency-recorder.ts';
import {
  fellBehind,
  type LatencyCell,
  type LatencyRunResult,
  type MaxRateRun,
  type RateSpec,
} from './latency-types.ts';
import { Pacing } from './paced-source.ts';
import { WatermarkReference } from './watermark-reference.ts';
import { buildLatencyJob, type LatencyWorkload } from './weir-latency-jobs.ts';

export interface WeirLatencyCellSpec {
  readonly workload: LatencyWorkload;
  readonly rates: readonly RateSpec[];
  /** Seconds of processing time per paced run: events = rate × seconds. */
  readonly seconds: number;
  readonly runs: number;
  /** Events of the unpaced warm-up and maximum-rate runs. */
  readonly maxEvents: number;
  readonly warmupFraction: number;
  readonly seed: number;
  readonly keys: number;
}

interface OneRun {
  readonly pacing: Pacing;
  readonly recorder: LatencyRecorder;
  readonly timerRecorder: LatencyRecorder;
  readonly endMs: number;
}

const references = new Map<number, WatermarkReference>();

async function runOnce(spec: WeirLatencyCellSpec, rate: number, events: number): Promise<OneRun> {
  const params = defaultParams(events, spec.seed, 1, spec.keys);
  let reference = references.get(events);
  if (reference === undefined)
    references.set(events, (reference = new WatermarkReference(params.stream, events)));
  const pacing = new Pacing(rate, events);
  const recorder = new LatencyRecorder(pacing);
  const timerRecorder = new LatencyRecorder(pacing);
  (globalThis as { gc?: () => void }).gc?.();
  await buildLatencyJob(spec.workload, { params, pacing, recorder, timerRecorder, reference }).execute(
    `latency-${spec.workload}`,
  );
  return { pacing, recorder, timerRecorder, endMs: performance.now() };
}

export async function runWeirLatencyCell(spec: WeirLatencyCellSpec): Promise<LatencyCell> {
  await runOnce(spec, Infinity, spec.maxEvents); // warm-up: JIT, and the reference table's first build
  const unpaced = await runOnce(spec, Infinity, spec.maxEvents);
  const ms = unpaced.endMs - unpaced.pacing.t0;
  const max: MaxRateRun = {
    events: spec.maxEvents,
    ms,
    rate: (spec.maxEvents / ms) * 1000,
    count: unpaced.recorder.checksum.count,
    checksum: unpaced.recorder.checksum.sum >>> 0,
  };
  const runs: LatencyRunResult[] = [];
  for (const rateSpec of spec.rates) {
    const rate = rateSpec === 'half' ? Math.max(1000, Math.round(max.rate / 2 / 1000) * 1000) : rateSpec;
    const events = Math.max(1000, Math.round(rate * spec.seconds));
    for (let r = 0; r < spec.runs; r++) {
      const run = await runOnce(spec, rate, events);
      const { pacing, recorder } = run;
      const gaveUp = pacing.end < events;
      const lagMs = pacing.lastEmitMs - pacing.dueMs(pacing.end - 1);
      const durationMs = ((pacing.end - 1) * 1000) / rate;
      runs.push({
        rateSpec,
        rate,
        events: pacing.end,
        count: recorder.checksum.count,
        checksum: recorder.checksum.sum >>> 0,
        untimed: recorder.untimed,
        achievedRate: (pacing.end / (pacing.lastEmitMs - pacing.t0)) * 1000,
        lagMs,
        fellBehind: gaveUp || fellBehind(lagMs, durationMs),
        latency: summarise(recorder.values(), spec.warmupFraction),
        ...(spec.workload === 'batching-timer'
          ? { timerLatency: summarise(run.timerRecorder.values(), spec.warmupFraction) }
          : {}),
      });
    }
  }
  return { system: 'weir', workload: spec.workload, status: 'ok', max, runs };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as WeirLatencyCellSpec;
  let cell: LatencyCell;
  try {
    cell = await runWeirLatencyCell(spec);
  } catch (error) {
    cell = { system: 'weir', workload: spec.workload, status: 'failed', note: String(error), runs: [] };
  }
  process.stdout.write(`RESULT ${JSON.stringify(cell)}\n`);
}
