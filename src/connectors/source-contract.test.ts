// The source contract, run once per built-in source: same records at any parallelism, exact resume and rescale.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { OutputTag } from '../core/output-tag.ts';
import { CollectionSource } from './collection-source.ts';
import { FileSource } from './file-source.ts';
import { GeneratorSource } from './generator-source.ts';
import type { PollResult, ReaderOutput, Source, SourceReader } from '../core/source.ts';
import { openSourceReader } from '../operators/split-assignment.ts';
import { AsyncIterableSource } from './async-iterable-source.ts';

const dir = mkdtempSync(join(tmpdir(), 'weir-source-contract-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const lines = (n: number, f: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => f(i)).join('\n') + '\n';
const jsonFiles = [0, 1, 2, 3].map((f) =>
  file(
    `c${f}.jsonl`,
    lines(150 + f * 11, (i) => JSON.stringify({ f, i })),
  ),
);
const gzFile = file('c.jsonl.gz', gzipSync(lines(200, (i) => `{"z":${i}}\n`)));
const csvFiles = [0, 1, 2].map((f) =>
  file(`c${f}.csv`, 'f,i,text\n' + lines(120, (i) => `${f},${i},"multi\nline ${i}"`)),
);

interface Case {
  name: string;
  source: () => Source<unknown>;
}

const cases: Case[] = [
  {
    name: 'CollectionSource',
    source: () => new CollectionSource(Array.from({ length: 3_000 }, (_, i) => ({ i }))),
  },
  {
    name: 'GeneratorSource',
    source: () => GeneratorSource.of(1_000, (i, r) => ({ i, r: r.nextUint32() }), { seed: 5, batchSize: 37 }),
  },
  {
    name: 'FileSource.jsonLines',
    source: () => FileSource.jsonLines([...jsonFiles, gzFile], { batchSize: 13 }),
  },
  { name: 'FileSource.csv', source: () => FileSource.csv(csvFiles, { batchSize: 17 }) },
  {
    name: 'AsyncIterableSource',
    source: () =>
      new AsyncIterableSource(async function* () {
        for (let i = 0; i < 2_500; i++) yield { i };
      }),
  },
];

class ListOutput implements ReaderOutput<unknown> {
  readonly values: unknown[] = [];
  collect(value: unknown): void {
    this.values.push(value);
  }
  collectSide<X>(_tag: OutputTag<X>, _value: X): void {
    throw new Error('unexpected side output');
  }
}

async function drain(
  reader: SourceReader<unknown>,
  output: ListOutput,
  maxPolls = Infinity,
): Promise<PollResult> {
  let result: PollResult = 'more';
  for (let i = 0; i < maxPolls && result === 'more'; i++) result = await reader.pollNext(output);
  return result;
}

/** A reader of subtask `subtaskIndex` with the splits the runtime would give it (fresh or `restored`). */
function openReader(
  source: Source<unknown>,
  subtaskIndex: number,
  parallelism: number,
  restored?: readonly unknown[],
): SourceReader<unknown> {
  return openSourceReader(
    source,
    { subtaskIndex, parallelism, sourceName: 'contract' },
    structuredClone(restored),
  );
}

async function readSubtask(
  source: Source<unknown>,
  subtaskIndex: number,
  parallelism: number,
  maxPolls = Infinity,
) {
  const reader = openReader(source, subtaskIndex, parallelism);
  const output = new ListOutput();
  const result = await drain(reader, output, maxPolls);
  return { reader, values: output.values, result };
}

const canonical = (values: unknown[]) => values.map((v) => JSON.stringify(v)).sort();

for (const { name, source } of cases) {
  describe(`source contract: ${name}`, () => {
    it('emits the same multiset of records at parallelism 1, 2 and 3', async () => {
      const expected = canonical((await readSubtask(source(), 0, 1)).values);
      assert.ok(expected.length > 0);
      for (const parallelism of [2, 3]) {
        const all: unknown[] = [];
        for (let s = 0; s < parallelism; s++)
          all.push(...(await readSubtask(source(), s, parallelism)).values);
        assert.deepEqual(canonical(all), expected, `parallelism ${parallelism}`);
      }
    });

    it('resumes from a position taken after any poll with every record exactly once', async () => {
      for (const [subtask, parallelism] of [
        [0, 1],
        [1, 2],
      ] as const) {
        const full = await readSubtask(source(), subtask, parallelism);
        let polls = 0;
        for (let done = false; !done; polls++) {
          const first = await readSubtask(source(), subtask, parallelism, polls);
          done = first.result === 'end';
          const splits = structuredClone(first.reader.snapshotState!());
          await first.reader.close?.();
          // Only this subtask's splits were taken; the others' are empty here.
          const restored: unknown[] = new Array(parallelism).fill([]);
          restored[subtask] = splits;
          const second = openReader(source(), subtask, parallelism, restored);
          const rest = new ListOutput();
          assert.equal(await drain(second, rest), 'end');
          await second.close?.();
          assert.deepEqual(
            [...first.values, ...rest.values],
            full.values,
            `subtask ${subtask}/${parallelism} after ${polls} polls`,
          );
        }
        if (full.values.length > 0) assert.ok(polls > 3, 'the case is large enough to need several polls');
      }
    });

    it('rescales: every split snapshotted mid-way at parallelism 3 is read exactly once at 1, 2 and 5', async () => {
      const expected = canonical((await readSubtask(source(), 0, 1)).values);
      for (const polls of [1, 3, 8]) {
        const before: unknown[] = [];
        const restored: unknown[] = [];
        for (let s = 0; s < 3; s++) {
          const part = await readSubtask(source(), s, 3, polls);
          before.push(...part.values);
          restored.push(structuredClone(part.reader.snapshotState!()));
          await part.reader.close?.();
        }
        for (const parallelism of [1, 2, 3, 5]) {
          const after: unknown[] = [];
          for (let s = 0; s < parallelism; s++) {
            const reader = openReader(source(), s, parallelism, restored);
            const output = new ListOutput();
            assert.equal(await drain(reader, output), 'end');
            await reader.close?.();
            after.push(...output.values);
          }
          assert.deepEqual(
            canonical([...before, ...after]),
            expected,
            `${polls} polls at parallelism 3, restored at ${parallelism}`,
          );
        }
      }
    });
  });
}
