// Helpers for the cooperative memory probe (see MemoryProbe in params.ts), so each implementation's hot
// loop pays one integer comparison per event for it.

import type { MemoryProbe } from './params.ts';

/** The first index at which `probe` wants a hit, or -1 when there is no probe. */
export function firstProbeIndex(probe: MemoryProbe | undefined): number {
  return probe === undefined ? -1 : probe.baselineIndex;
}

/** Calls the probe for `index` and returns the next index it wants, or -1 when done. */
export function hitProbe(probe: MemoryProbe | undefined, index: number): number {
  if (probe === undefined) return -1;
  probe.hit(index);
  return index === probe.baselineIndex && probe.measureIndex > index ? probe.measureIndex : -1;
}
