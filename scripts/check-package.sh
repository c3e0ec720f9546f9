#!/usr/bin/env bash
# Packs weir with `npm pack`, installs the tarball into a fresh project and checks every entry point loads and type-checks
# (ESM import and CommonJS require), that `import 'weir'` loads no native addon, and that the `weir` command runs.
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

# The LMDB backend comes from its own subpath; the root entry loads no native addon (lmdb's .node file).
cat > lmdb.mjs <<'JS'
await import('weir');
const addons = () => process.report.getReport().sharedObjects.filter((o) => o.endsWith('.node'));
if (addons().length > 0) throw new Error(`import 'weir' loaded native addons: ${addons().join(', ')}`);
const { LmdbStateBackend } = await import('weir/lmdb');
if (typeof LmdbStateBackend !== 'function') throw new Error('weir/lmdb: no LmdbStateBackend');
console.log('weir/lmdb ok; import of weir loads no native addon');
JS
node lmdb.mjs

# weir/opentelemetry loads @opentelemetry/api (an optional peer; here prom-client's peer brings it in); `import 'weir'`
# must not: a resolve hook fails any import of an @opentelemetry package.
cat > no-otel-hooks.mjs <<'JS'
export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@opentelemetry/')) throw new Error(`loaded ${specifier}`);
  return next(specifier, context);
}
JS
cat > no-otel.mjs <<'JS'
import { register } from 'node:module';
register('./no-otel-hooks.mjs', import.meta.url);
JS
node --import ./no-otel.mjs --input-type=module -e "await import('weir'); console.log('import of weir loads no @opentelemetry package')"
if node --import ./no-otel.mjs --input-type=module -e "await import('weir/opentelemetry')" 2>/dev/null; then
  echo 'the hook did not see weir/opentelemetry load @opentelemetry/api' >&2
  exit 1
fi
cat > otel-on.mjs <<'JS'
import { StreamExecutionEnvironment } from 'weir';
import { OpenTelemetryReporter } from 'weir/opentelemetry';
const reporter = new OpenTelemetryReporter();
const env = StreamExecutionEnvironment.create({ metrics: { reporters: [reporter] } });
const out = await env.fromElements(1, 2).map((n) => n + 1).executeAndCollect();
reporter.close();
if (JSON.stringify(out) !== '[2,3]') throw new Error(`weir/opentelemetry job: ${JSON.stringify(out)}`);
console.log('weir/opentelemetry ok');
JS
node otel-on.mjs

# CommonJS consumers: require() of the ES module package (Node 22.12+), through the exports' default condition.
cat > require.cjs <<'JS'
const { StreamExecutionEnvironment, WindowOperator } = require('weir');
const { TestHarness } = require('weir/testing');
const { LmdbStateBackend } = require('weir/lmdb');
if (typeof StreamExecutionEnvironment.create !== 'function') throw new Error('require(weir): no environment');
if (typeof TestHarness.create !== 'function') throw new Error('require(weir/testing): no TestHarness');
if (typeof LmdbStateBackend !== 'function') throw new Error('require(weir/lmdb): no LmdbStateBackend');
if (WindowOperator !== undefined) throw new Error('require(weir): engine classes leak from the root entry');
console.log('require ok');
JS
node --no-warnings=ExperimentalWarning require.cjs

# The command line: --version prints the package's version, --help exits 0, an unknown option fails.
expected="$(node -p "require('$root/package.json').version")"
[ "$(./node_modules/.bin/weir --version)" = "$expected" ] || { echo "weir --version did not print $expected" >&2; exit 1; }
./node_modules/.bin/weir --help >/dev/null
if ./node_modules/.bin/weir --bogus >/dev/null 2>&1; then echo 'weir --bogus did not fail' >&2; exit 1; fi
# `weir run` runs a JavaScript job file that imports the installed package, passing it its arguments.
cat > job.mjs <<'JS'
import { StreamExecutionEnvironment } from 'weir';
const env = StreamExecutionEnvironment.create();
env.fromElements(1, 2, 3).map((n) => n * Number(process.argv[2])).print();
await env.execute('packaged');
JS
printed="$(./node_modules/.bin/weir run job.mjs 10 2>run.err)"
[ "$printed" = $'10\n20\n30' ] || { echo "weir run printed: $printed" >&2; cat run.err >&2; exit 1; }
grep -q "^Job 'packaged' ([0-9a-f]*) finished in [0-9]* ms$" run.err || { cat run.err >&2; exit 1; }
echo "cli ok (node $(node --version))"

