// Micro-benchmark: moving batches of flat event records from one worker thread to another. Isolates the transport
// (structured clone over a MessagePort, transferred ArrayBuffers) and the record encoding (structured clone,
// v8.serialize, msgpackr with and without record structures, a declared record type written into a Float64Array),
// one way, consumer touching every record. First, on one thread and without transport, the CPU time per record of
// encoding and decoding with msgpackr (record structures, as the exchange uses it) and with a typed record batch.
// Run: node --import tsx bench/micro/thread-exchange.ts [--events 2000000] [--batch 1024] [--runs 5] [--codec-only]
//      [--record mixed|numeric] (Node 24 measures CPU time per thread; before that, wall time)

import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { spawnWorker } from '../../src/execution/workers/spawn-worker.ts';
import { deserialize, serialize } from 'node:v8';
import { Packr, Unpackr } from 'msgpackr';
import type { MessagePort as WorkerPort } from 'node:worker_threads';
import { Types } from '../../src/core/record-type.ts';
import type { InputChannel } from '../../src/runtime/input-channel.ts';
import { RECORD } from '../../src/runtime/exchange-event-kinds.ts';
import { deliverTypedBatch, TypedRecordBatch } from '../../src/runtime/typed-record-batch.ts';

interface Event {
  user: number;
  page: string;
  ts: number;
  value: number;
}

type Mode = 'clone' | 'v8' | 'msgpackr' | 'msgpackr-records' | 'typed';
const MODES: Mode[] = ['clone', 'v8', 'msgpackr', 'msgpackr-records', 'typed'];
const EventType = Types.record({ user: 'number', page: 'string', ts: 'number', value: 'number' });
/** The bench's generic event: numbers only (bench/workloads/generator.ts). */
const NumericType = Types.record({ id: 'number', key: 'number', value: 'number', ts: 'number' });

/** A consumer channel that touches every record's value (what the exchange replays a batch into). */
class SummingChannel {
  sum = 0;
  count = 0;
  /** Kept, so that the compiler cannot leave a decoded record unallocated (a real consumer keeps or passes it on). */
  last: unknown = undefined;
  process(value: unknown): void {
    this.sum += (value as { value: number }).value;
    this.last = value;
    this.count++;
  }
  watermark(): void {}
  status(): void {}
  endOfInput(): void {}
  barrier(): void {}
}

function summingChannel(): InputChannel & SummingChannel {
  return new SummingChannel() as unknown as InputChannel & SummingChannel;
}

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

function makeEvent(i: number): Event {
  return { user: i % 10_000, page: `/p/${i % 97}`, ts: 1_700_000_000_000 + i, value: (i * 7) % 1000 };
}

/** CPU nanoseconds of this thread (wall time where threadCpuUsage is missing, before Node 23.9). */
function cpuNs(): number {
  const usage = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage?.();
  return usage !== undefined ? (usage.user + usage.system) * 1000 : performance.now() * 1e6;
}

/**
 * Encode and decode per record on one thread, as the exchange does them: msgpackr packs (kind, record, timestamp)
 * triples and unpacks them; a typed batch writes each record, copies the batch out, and replays it as new objects.
 */
function codecCost(events: number, batch: number, runs: number): void {
  const cases = [
    { key: 'mixed', name: 'event {user, page: string, ts, value}', type: EventType, make: makeEvent },
    {
      key: 'numeric',
      name: 'bench event {id, key, value, ts}',
      type: NumericType,
      make: (i: number) => ({ id: i, key: i % 10_000, value: (i * 7) % 1000, ts: 1_700_000_000_000 + i }),
    },
  ];
  // One record shape per process (--record mixed|numeric), so that neither case's type feedback slows the other.
  const only = process.argv.includes('--record')
    ? process.argv[process.argv.indexOf('--record') + 1]
    : undefined;
  for (const c of cases) {
    if (only !== undefined && c.key !== only) continue;
    const records = Array.from({ length: batch }, (_, i) => c.make(i));
    const packr = new Packr({ useRecords: true, moreTypes: true });
    const unpackr = new Unpackr({ useRecords: true, moreTypes: true });
    const typed = new TypedRecordBatch(c.type, batch);
    const channel = summingChannel();
    const rounds = Math.max(1, Math.floor(events / batch));
    const result: Record<string, number[]> = { mEnc: [], mDec: [], tEnc: [], tDec: [] };
    for (let r = 0; r <= runs; r++) {
      let enc = 0;
      let dec = 0;
      for (let k = 0; k < rounds; k++) {
        let t = cpuNs();
        const triples: unknown[] = [];
        for (let i = 0; i < batch; i++) triples.push(RECORD, records[i], i);
        const bytes = new Uint8Array(packr.pack(triples));
        enc += cpuNs() - t;
        t = cpuNs();
        const back = unpackr.unpack(bytes) as unknown[];
        for (let i = 0; i < back.length; i += 3) channel.process(back[i + 1], back[i + 2] as number);
        dec += cpuNs() - t;
      }
      if (r > 0) {
        result.mEnc!.push(enc / (rounds * batch));
        result.mDec!.push(dec / (rounds * batch));
      }
      enc = 0;
      dec = 0;
      for (let k = 0; k < rounds; k++) {
        let t = cpuNs();
        for (let i = 0; i < batch; i++) typed.record(records[i], i);
        const message = typed.take();
        enc += cpuNs() - t;
        t = cpuNs();
        deliverTypedBatch(c.type, message.numbers, message.strings, undefined, channel);
        dec += cpuNs() - t;
      }
      if (r > 0) {
        result.tEnc!.push(enc / (rounds * batch));
        result.tDec!.push(dec / (rounds * batch));
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!.toFixed(0);
    const span = (xs: number[]) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
    console.log(
      `${c.name}: ns per record, median (min-max) of ${runs} runs of ${rounds * batch} records\n` +
        `  msgpackr records  encode ${med(result.mEnc!)} (${span(result.mEnc!)})  decode ${med(result.mDec!)} (${span(result.mDec!)})\n` +
        `  typed batch       encode ${med(result.tEnc!)} (${span(result.tEnc!)})  decode ${med(result.tDec!)} (${span(result.tDec!)})`,
    );
  }
}

if (isMainThread) {
  const events = arg('events', 2_000_000);
  const batch = arg('batch', 1024);
  const runs = arg('runs', 5);
  codecCost(events, batch, runs);
  if (process.argv.includes('--codec-only')) process.exit(0);
  console.log(`${events} events, ${batch} per batch, ${runs} runs; events/s one way (median, min-max)`);
  for (const mode of MODES) {
    const rates: number[] = [];
    for (let r = 0; r < runs; r++) rates.push(await runOnce(mode, events, batch));
    rates.sort((a, b) => a - b);
    const median = rates[Math.floor(rates.length / 2)]!;
    const fmt = (x: number) => `${(x / 1e6).toFixed(2)}M`;
    console.log(`${mode.padEnd(18)} ${fmt(median)}  (${fmt(rates[0]!)}-${fmt(rates[rates.length - 1]!)})`);
  }
} else {
  const { mode, events, batch, port } = workerData as {
    mode: Mode;
    events: number;
    batch: number;
    port: WorkerPort;
  };
  if (workerData.role === 'producer') {
    const packr = new Packr({ useRecords: mode === 'msgpackr-records' });
    const typed = new TypedRecordBatch(EventType, batch);
    let credits = 0;
    let sent = 0;
    const pump = (): void => {
      while (credits > 0 && sent < events) {
        const n = Math.min(batch, events - sent);
        if (mode === 'typed') {
          for (let i = 0; i < n; i++) typed.record(makeEvent(sent + i), 0);
          sent += n;
          credits--;
          const message = typed.take();
          port.postMessage([message.numbers, message.strings], [message.numbers.buffer]);
          continue;
        }
        const records: Event[] = new Array(n);
        for (let i = 0; i < n; i++) records[i] = makeEvent(sent + i);
        sent += n;
        credits--;
        if (mode === 'clone') port.postMessage(records);
        else {
          const bytes = mode === 'v8' ? serialize(records) : packr.pack(records);
          const copy = new Uint8Array(bytes);
          port.postMessage(copy, [copy.buffer]);
        }
      }
    };
    // The consumer's first grant starts the stream, so thread start-up is not timed.
    port.on('message', (grant: number) => {
      credits += grant;
      pump();
    });
  } else {
    const unpackr = new Unpackr({ useRecords: mode === 'msgpackr-records' });
    let received = 0;
    let sum = 0;
    let started = 0;
    const channel = summingChannel();
    port.on('message', (message: Event[] | Uint8Array | [Float64Array, string[]]) => {
      if (started === 0) started = performance.now();
      if (mode === 'typed') {
        const [numbers, strings] = message as [Float64Array, string[]];
        const before = channel.count;
        deliverTypedBatch(EventType, numbers, strings, undefined, channel);
        received += channel.count - before;
        port.postMessage(1);
        if (received >= events) {
          parentPort!.postMessage({ sum: channel.sum, ms: performance.now() - started });
          port.close();
        }
        return;
      }
      const records: Event[] =
        mode === 'clone'
          ? (message as Event[])
          : mode === 'v8'
            ? deserialize(message as Uint8Array)
            : unpackr.unpack(message as Uint8Array);
      for (let i = 0; i < records.length; i++) sum += records[i]!.value;
      received += records.length;
      port.postMessage(1);
      if (received >= events) {
        parentPort!.postMessage({ sum, ms: performance.now() - started });
        port.close();
      }
    });
    port.postMessage(8);
  }
}

async function runOnce(mode: Mode, events: number, batch: number): Promise<number> {
  const { port1, port2 } = new MessageChannel();
  const url = new URL(import.meta.url);
  const consumer = spawnWorker(url, {
    workerData: { role: 'consumer', mode, events, batch, port: port2 },
    transferList: [port2],
  });
  const producer = spawnWorker(url, {
    workerData: { role: 'producer', mode, events, batch, port: port1 },
    transferList: [port1],
  });
  const result = await new Promise<{ ms: number }>((resolve, reject) => {
    consumer.once('message', resolve);
    consumer.once('error', reject);
    producer.once('error', reject);
  });
  const seconds = result.ms / 1000;
  await Promise.all([consumer.terminate(), producer.terminate()]);
  return events / seconds;
}
