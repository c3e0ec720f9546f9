// Micro-benchmark: moving batches of flat event records from one worker thread to another. Isolates the transport
// (structured clone over a MessagePort, transferred ArrayBuffers) and the record encoding (structured clone,
// v8.serialize, msgpackr with and without record structures), one way, consumer touching every record.
// Run: node --import tsx bench/micro/thread-exchange.ts [--events 2000000] [--batch 1024] [--runs 5]

import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { spawnWorker } from '../../src/execution/workers/spawn-worker.ts';
import { deserialize, serialize } from 'node:v8';
import { Packr, Unpackr } from 'msgpackr';
import type { MessagePort as WorkerPort } from 'node:worker_threads';

interface Event {
  user: number;
  page: string;
  ts: number;
  value: number;
}

type Mode = 'clone' | 'v8' | 'msgpackr' | 'msgpackr-records';
const MODES: Mode[] = ['clone', 'v8', 'msgpackr', 'msgpackr-records'];

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

function makeEvent(i: number): Event {
  return { user: i % 10_000, page: `/p/${i % 97}`, ts: 1_700_000_000_000 + i, value: (i * 7) % 1000 };
}

if (isMainThread) {
  const events = arg('events', 2_000_000);
  const batch = arg('batch', 1024);
  const runs = arg('runs', 5);
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
    let credits = 0;
    let sent = 0;
    const pump = (): void => {
      while (credits > 0 && sent < events) {
        const n = Math.min(batch, events - sent);
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
    port.on('message', (message: Event[] | Uint8Array) => {
      if (started === 0) started = performance.now();
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
