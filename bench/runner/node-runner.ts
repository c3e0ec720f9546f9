// Runs a Node cell either in a fresh child process (the default for timed suites) or in this process
// (--smoke, where start-up time matters more than JIT isolation).

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Measurement } from './measurement.ts';
import { type CellSpec, measureCell } from './measure.ts';
import { loadSystem } from './systems.ts';

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));
const RESULT_PREFIX = 'RESULT ';

export async function runCellInProcess(spec: CellSpec): Promise<Measurement> {
  const loaded = await loadSystem(spec.system, spec.checkpointIntervalMs);
  if (loaded.system === undefined) {
    return failed(spec, 'unavailable', loaded.error ?? 'not loaded');
  }
  try {
    return await measureCell(loaded.system, spec);
  } catch (error) {
    return failed(spec, 'failed', String(error));
  }
}

export function runCellInChild(spec: CellSpec): Promise<Measurement> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => {
      const line = stdout.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (code === 0 && line !== undefined)
        resolve(JSON.parse(line.slice(RESULT_PREFIX.length)) as Measurement);
      else
        resolve(
          failed(spec, 'failed', `child exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`),
        );
    });
  });
}

function failed(spec: CellSpec, status: 'failed' | 'unavailable', note: string): Measurement {
  return {
    system: spec.system,
    workload: spec.workload,
    status,
    note,
    events: spec.events,
    parallelism: spec.parallelism,
    runs: [],
  };
}
