// Runs the clickstream job on the bundled sample (or the files given) and prints a readable report.
//   node --import tsx examples/clickstream/main.ts [file.jsonl ...]
import { fileURLToPath } from 'node:url';
import { CollectSink, StreamExecutionEnvironment } from '../../src/index.ts';
import { clickstream, type Click, type QuickPurchase, type UserMinute } from './clickstream.ts';
import type { MalformedRecord } from '../../src/index.ts';

const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : [fileURLToPath(new URL('../data/clicks.jsonl', import.meta.url))];
// Add `workers: 2` to run the subtasks on two worker threads (each imports this file again; see docs/architecture.md).
const env = StreamExecutionEnvironment.create({ parallelism: 2 });
const job = clickstream(env, files);

// A progress line on standard error while the input is read (every 5,000 records), when it is a terminal.
let seen = 0;
const showProgress = process.stderr.isTTY === true;
job.clicks
  .map((c) => {
    if (++seen % 5_000 === 0 && showProgress)
      process.stderr.write(`\r  read ${seen.toLocaleString('en')} clicks…`);
    return c;
  })
  .sinkTo({ createWriter: () => ({ write() {} }) }, 'progress');

const [minutes, purchases, late, malformed] = [
  new CollectSink<UserMinute>(),
  new CollectSink<QuickPurchase>(),
  new CollectSink<Click>(),
  new CollectSink<MalformedRecord>(),
];
job.perMinute.sinkTo(minutes);
job.purchases.sinkTo(purchases);
job.late.sinkTo(late);
job.malformed.sinkTo(malformed);

const result = await env.execute('clickstream');
if (showProgress) process.stderr.write('\r' + ' '.repeat(40) + '\r');

const busiest = [...minutes.values]
  .sort((a, b) => b.clicks - a.clicks || a.uid.localeCompare(b.uid))
  .slice(0, 5);
const fastest = [...purchases.values]
  .sort((a, b) => a.secondsToBuy - b.secondsToBuy || a.uid.localeCompare(b.uid))
  .slice(0, 5);
// Counted by the job (the source's records out), so it is right however many threads ran the subtasks.
const read = result.metrics.find((m) => m.name === 'clicks')?.recordsOut ?? seen;
console.log(`Weir clickstream demo — ${read.toLocaleString('en')} clicks from ${files.length} file(s)\n`);
// The run time varies from run to run, so it goes to standard error: standard output is the same on every run.
process.stderr.write(`(ran in ${result.netRuntimeMs} ms)\n`);
console.log(`Busiest user-minutes (of ${minutes.values.length} one-minute windows):`);
for (const m of busiest)
  console.log(
    `  ${m.minute} UTC  ${m.uid.padEnd(9)} ${String(m.clicks).padStart(3)} clicks on ${m.pages} pages`,
  );
console.log(`\nLogins followed by a purchase within 5 minutes: ${purchases.values.length}; the quickest:`);
for (const p of fastest)
  console.log(
    `  ${p.uid.padEnd(9)} bought ${p.secondsToBuy} s after logging in at ${new Date(p.loginAt).toISOString().slice(11, 19)} UTC`,
  );
console.log(`\nLate clicks (after their minute closed), sent to a side output: ${late.values.length}`);
console.log(`Malformed lines, sent to a side output: ${malformed.values.length}`);
for (const bad of malformed.values) console.log(`  line ${bad.line}: ${bad.error}`);
