#!/usr/bin/env bash
# Packs weir with `npm pack`, installs the tarball into a fresh project and checks both entry points load and type-check.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$root"
rm -rf dist
npm run --silent build
tarball="$(npm pack --silent --ignore-scripts --pack-destination "$work" | tail -n 1)"
mkdir "$work/consumer"
cd "$work/consumer"
cat > package.json <<'JSON'
{ "name": "weir-consumer", "version": "0.0.0", "private": true, "type": "module" }
JSON
npm install --silent --no-audit --no-fund "$work/$tarball" >/dev/null
cat > main.ts <<'TS'
import { StreamExecutionEnvironment, ValueStateDescriptor, type ValueState } from 'weir';
import { TestHarness } from 'weir/testing';
import type { DataStream } from 'weir';
// weir/kafka loads without its optional client (@confluentinc/kafka-javascript is not installed here).
import { Deserializers, KafkaSource, OffsetsInitializer } from 'weir/kafka';

const env = StreamExecutionEnvironment.create({ parallelism: 2 });
const words: string[] = await env
  .fromElements('a', 'b', 'a')
  .keyBy((w) => w)
  .process<string>({
    count: undefined as unknown as ValueState<number>,
    open(ctx) {
      this.count = ctx.getState(new ValueStateDescriptor<number>('count', { defaultValue: 0 }));
    },
    processElement(w, _ctx, out) {
      this.count.update(this.count.value()! + 1);
      out.collect(`${w}${this.count.value()}`);
    },
  })
  .executeAndCollect();
const harness = await TestHarness.create((input: DataStream<number>) => input.map((n) => n * 2));
harness.processElement(21, 5);
const kafka = KafkaSource.builder<string>()
  .setBootstrapServers('127.0.0.1:9092')
  .setTopics('orders')
  .setBounded(OffsetsInitializer.latest())
  .setValueOnlyDeserializer(Deserializers.string())
  .build();
if (kafka.boundedness !== 'bounded') throw new Error('weir/kafka: unexpected boundedness');
const result = { words: words.sort(), harness: harness.output() };
if (JSON.stringify(result) !== JSON.stringify({ words: ['a1', 'a2', 'b1'], harness: [{ value: 42, timestamp: 5 }] })) {
  throw new Error(`unexpected: ${JSON.stringify(result)}`);
}
console.log('package ok:', JSON.stringify(result));
TS
# A Node.js consumer has Node's types; take them from this repository instead of fetching them again.
cat > tsconfig.json <<JSON
{ "compilerOptions": { "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true, "noEmit": true,
  "skipLibCheck": false, "typeRoots": ["$root/node_modules/@types"], "types": ["node"] }, "files": ["main.ts"] }
JSON
"$root/node_modules/.bin/tsc" -p tsconfig.json
cp main.ts main.mts
"$root/node_modules/.bin/tsc" --target ES2022 --module NodeNext --moduleResolution NodeNext --typeRoots "$root/node_modules/@types" --types node --outDir out main.mts
node out/main.mjs
