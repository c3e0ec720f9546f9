// Benchmark of the CEP NFA hot path: three CEP workloads over the pure NFA on the heap backend, events/s and peak
// shared-buffer size. Run: EVENTS=300000 node --import tsx bench/weir/cep-nfa.ts
// Reports wall-clock events/s and events per CPU-second of this process (GC threads included): on a shared machine
// the second is the steadier number. Timestamps are event indexes, so `within(100_000)` over 10,000 keys keeps
// ~10 events per key in the window.
import { AfterMatchSkipStrategy, Pattern } from '../../src/index.ts';
import { compilePattern } from '../../src/cep/nfa/compiler/nfa-compiler.ts';
import { NFA } from '../../src/cep/nfa/nfa.ts';
import { SharedBuffer } from '../../src/cep/nfa/shared-buffer/shared-buffer.ts';
import { SharedBufferAccessor } from '../../src/cep/nfa/shared-buffer/shared-buffer-accessor.ts';
import type { NFAState } from '../../src/cep/nfa/nfa-state.ts';
import { HeapKeyedStateBackend } from '../../src/state/heap/heap-keyed-state-backend.ts';
import { KeyGroupRange } from '../../src/state/key-group-range.ts';

interface Ev {
  key: number;
  kind: number; // 0 = a, 1 = b, 2 = c, 3 = other
  price: number;
}

function run(name: string, pattern: Pattern<Ev, any, any, any>, keys: number, events: number): void {
  const backend = new HeapKeyedStateBackend(128, new KeyGroupRange(0, 127), () => 0);
  const accessor = new SharedBufferAccessor<Ev>(new SharedBuffer<Ev>(backend));
  const compiled = compilePattern(pattern);
  const nfa = new NFA(compiled, true);
  const states = new Map<number, NFAState>();
  const timer = { currentProcessingTime: () => 0 };
  const rand = mulberry32(7);
  const input: Ev[] = [];
  for (let i = 0; i < events; i++)
    input.push({ key: Math.floor(rand() * keys), kind: Math.floor(rand() * 4), price: rand() * 10 });
  let matches = 0;
  let timeouts = 0;
  let peakEntries = 0;
  let liveEntries = 0;
  const perKey = new Map<number, number>();
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < events; i++) {
    const e = input[i]!;
    backend.setCurrentKey(e.key);
    let st = states.get(e.key);
    if (st === undefined) states.set(e.key, (st = nfa.createInitialNFAState()));
    const adv = nfa.advanceTime(accessor, st, i, compiled.afterMatchSkipStrategy);
    timeouts += adv.timedOut.length;
    matches += nfa.process(accessor, st, e, i, compiled.afterMatchSkipStrategy, timer).length;
    if ((i & 1023) === 0) {
      // sample the buffer size of this key; track the total over keys
      const n = accessor.buffer.numEntries();
      liveEntries += n - (perKey.get(e.key) ?? 0);
      perKey.set(e.key, n);
      peakEntries = Math.max(peakEntries, liveEntries);
    }
  }
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(
    `${name.padEnd(44)} ${Math.round((events / ms) * 1000)
      .toLocaleString('en')
      .padStart(10)} events/s ` +
      `(${Math.round((events / cpuMs) * 1000)
        .toLocaleString('en')
        .padStart(10)} per CPU-s)  ` +
      `matches ${matches}  timeouts ${timeouts}  sampled peak shared-buffer entries ~${peakEntries}`,
  );
}

/**
 * A small, well-mixed PRNG (mulberry32). The earlier `seed * 1103515245 % 2 ** 31` LCG lost its low bits to float
 * rounding and cycled after ~12,000 draws, so only ~69% of the keys ever saw an event and most keys saw one kind.
 */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const isKind = (k: number) => (e: Ev) => e.kind === k;
const N = Number(process.env.EVENTS ?? 1_000_000);

run(
  'followedBy x3 within(100k), 10,000 keys',
  Pattern.begin<Ev>('a')
    .where(isKind(0))
    .followedBy('b')
    .where(isKind(1))
    .followedBy('c')
    .where(isKind(2))
    .within(100_000),
  10_000,
  N,
);
run(
  'oneOrMore + skipPastLastEvent, 1,000 keys',
  Pattern.begin<Ev>('a', AfterMatchSkipStrategy.skipPastLastEvent())
    .where(isKind(0))
    .followedBy('b')
    .where(isKind(1))
    .oneOrMore()
    .followedBy('c')
    .where(isKind(2))
    .within(50_000),
  1_000,
  N,
);
run(
  'iterative condition (rising prices), 1,000 keys',
  Pattern.begin<Ev>('a')
    .where(isKind(0))
    .followedBy('b')
    .where((e, ctx) => {
      let last = -1;
      for (const x of ctx.getEventsForPattern('a')) last = x.price;
      return e.kind === 1 && e.price > last;
    })
    .within(20_000),
  1_000,
  N,
);
