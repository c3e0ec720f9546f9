// Micro-benchmark: what one LMDB read and one write-back put cost on this machine, in the backend's own key and value
// layout, by store size: the floor under the backend's miss path (bench/micro/lmdb-miss-path.ts), with no cache and
// no state handles around them.
// Reports CPU time per operation (user + system of this process: every call here is synchronous, on this thread):
//   read      getBinaryFast of a uniformly drawn existing key (what a cache miss pays)
//   put       putSync of BATCH uniformly drawn keys in one transaction, in key group order (the write-back's order),
//             and the share of that which is the transaction's begin and commit
// Run: node --import tsx bench/micro/lmdb-op-costs.ts [--keys 10000,1000000] [--batch 100000] [--rounds 5]

import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { keyGroupFor } from '../../src/state/key-hash.ts';
import { encodeEntryKey, encodeEntryValue, VALUE_NUMBER } from '../../src/state/lmdb/lmdb-key-codec.ts';
import { VoidNamespace, voidNamespaceSerializer } from '../../src/state/namespace.ts';
import { spread, type Spread } from '../runner/stats.ts';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1]! : fallback;
};
const KEYS = arg('keys', '10000,1000000').split(',').map(Number);
const BATCH = Number(arg('batch', '100000'));
const ROUNDS = Number(arg('rounds', '5'));
/** The backend's defaults: 128 key groups in one subtask, state id 0, the void namespace. */
const MAX_PARALLELISM = 128;
const NS_BYTES = voidNamespaceSerializer.serializer.serialize(VoidNamespace);

const cpuMicros = (): number => {
  const used = process.cpuUsage();
  return used.user + used.system;
};
const entryKey = (key: number): Buffer =>
  encodeEntryKey(keyGroupFor(key, MAX_PARALLELISM), 0, voidNamespaceSerializer.key(VoidNamespace), key);

/** CPU ns per read, per put and per put of the begin + commit, one sample per round, after one warm-up round. */
function measure(keys: number): { read: Spread; put: Spread; commit: Spread } {
  const path = mkdtempSync(join(tmpdir(), 'weir-lmdb-ops-'));
  const root = open({ path: join(path, 'db'), noSync: true, noMemInit: true, compression: false });
  const db = root.openDB({ name: 'state', keyEncoding: 'binary', encoding: 'binary' });
  const value = encodeEntryValue(-1, NS_BYTES, VALUE_NUMBER, 1);
  for (let from = 0; from < keys; from += BATCH)
    db.transactionSync(() => {
      for (let k = from; k < Math.min(keys, from + BATCH); k++) db.putSync(entryKey(k), value);
    });
  let seed = 42;
  const reads: number[] = [];
  const puts: number[] = [];
  const commits: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const drawn: Buffer[] = [];
    for (let i = 0; i < BATCH; i++) {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      drawn.push(entryKey((seed >>> 4) % keys));
    }
    let found = 0;
    let start = cpuMicros();
    for (const key of drawn) if (db.getBinaryFast(key) !== undefined) found++;
    const read = cpuMicros() - start;
    if (found !== BATCH) throw new Error(`read ${found} of ${BATCH} existing keys`);
    drawn.sort((a, b) => a.readUInt16BE(0) - b.readUInt16BE(0));
    let inside = 0;
    start = cpuMicros();
    db.transactionSync(() => {
      const from = cpuMicros();
      for (const key of drawn) db.putSync(key, value);
      inside = cpuMicros() - from;
    });
    const put = cpuMicros() - start;
    if (round === 0) continue; // warm-up: the JIT, and the file's pages
    reads.push((read * 1000) / BATCH);
    puts.push((put * 1000) / BATCH);
    commits.push(((put - inside) * 1000) / BATCH);
  }
  root.close();
  rmSync(path, { recursive: true, force: true });
  return { read: spread(reads), put: spread(puts), commit: spread(commits) };
}

const show = (s: Spread): string => `${s.median.toFixed(0)} (${s.min.toFixed(0)}-${s.max.toFixed(0)})`;
console.log(
  `LMDB operations: ${BATCH.toLocaleString('en-US')} per round, ${ROUNDS} rounds, CPU ns per operation, median (min-max); load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
for (const keys of KEYS) {
  const { read, put, commit } = measure(keys);
  console.log(
    `  ${keys.toLocaleString('en-US').padStart(10)} keys: read ${show(read)}, put ${show(put)} of which begin + commit ${show(commit)}`,
  );
}
