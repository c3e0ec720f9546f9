// Child-process entry: measures one (system, workload) cell in a fresh V8, so JIT feedback and heap state
// from other systems cannot leak into it, and prints "RESULT <json>" as its last stdout line.
// Run by bench/run.ts: node --expose-gc --import tsx bench/runner/child.ts '<CellSpec as JSON>'

import type { Measurement } from './measurement.ts';
import { type CellSpec, measureCell } from './measure.ts';
import { loadSystem } from './systems.ts';

const RESULT_PREFIX = 'RESULT '; // read by node-runner.ts

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as CellSpec;
  const loaded = await loadSystem(spec.system, spec.checkpointIntervalMs);
  let measurement: Measurement;
  if (loaded.system === undefined) {
    measurement = {
      system: spec.system,
      workload: spec.workload,
      status: 'unavailable',
      note: loaded.error ?? 'not loaded',
      events: spec.events,
      parallelism: spec.parallelism,
      runs: [],
    };
  } else {
    measurement = await measureCell(loaded.system, spec);
  }
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(measurement)}\n`);
}

await main();
