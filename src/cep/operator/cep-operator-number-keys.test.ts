// CepOperator with number keys, whose records the watermark round looks up behind a filter (NumberKeyFilter): each
// key's matches and timeouts equal those of the same stream keyed by strings, which the filter does not count.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedOperatorHarness } from '../../../test/support/keyed-operator-harness.ts';
import { compilePattern } from '../nfa/compiler/nfa-compiler.ts';
import { abcWithin, type NamedEvent } from '../../../test/support/abc-pattern.ts';
import { CepOperator } from './cep-operator.ts';
import { SeededRandom } from '../../connectors/seeded-random.ts';

type Ev = NamedEvent<number>;

/** Within 400: partial matches live long, so hundreds of keys hold one at once. */
const pattern = () => abcWithin<Ev>(400);

/** Every match and timeout as `match|timeout key:ids@timestamp`, in the order the operator emits them. */
function run(
  events: readonly { e: Ev; ts: number; watermark: number }[],
  keyOf: (e: Ev) => unknown,
): string[] {
  const log: string[] = [];
  const show = (m: Record<string, Ev[]>) => {
    const all = Object.values(m).flat();
    return `${all[0]!.key}:${all.map((e) => e.id).join('-')}`;
  };
  const fn = {
    processMatch: (m: Record<string, Ev[]>, ctx: { timestamp(): number }) =>
      void log.push(`match ${show(m)}@${ctx.timestamp()}`),
    processTimedOutMatch: (m: Record<string, Ev[]>, ctx: { timestamp(): number }) =>
      void log.push(`timeout ${show(m)}@${ctx.timestamp()}`),
  };
  const h = new KeyedOperatorHarness<Ev, unknown>(
    () =>
      new CepOperator<Ev, unknown, string>(
        compilePattern(pattern()),
        fn as never,
        false,
        (a, b) => a.id - b.id,
        undefined,
      ),
    keyOf,
  );
  let watermark = Number.NEGATIVE_INFINITY;
  for (const { e, ts, watermark: w } of events) {
    h.processElement(e, ts);
    if (w > watermark) h.processWatermark((watermark = w));
  }
  h.processWatermark(Number.MAX_SAFE_INTEGER);
  return log;
}

describe('CepOperator with number keys', () => {
  it('matches and times out as with the same keys as strings, on fixed seeds, records growing past the filter', () => {
    // small, negative, fractional, large and power-of-two-spaced keys: slots shared and the table grown twice
    const shapes = [
      (k: number) => k,
      (k: number) => -k - 1,
      (k: number) => k + 0.5,
      (k: number) => k * 65_536,
    ];
    for (const seed of [3, 77, 1_000]) {
      const draws = new SeededRandom(seed);
      const next = () => draws.next();
      const events: { e: Ev; ts: number; watermark: number }[] = [];
      let clock = 1_000;
      for (let id = 0; id < 6_000; id++) {
        clock += next() < 0.5 ? 1 : 0;
        const ts = clock - Math.floor(next() * 5);
        const key = shapes[Math.floor(next() * shapes.length)]!(Math.floor(next() * 300));
        const name = 'abcx'[Math.floor(next() * 4)]!;
        events.push({
          e: { id, name, key },
          ts,
          watermark: next() < 0.05 ? clock - 6 : Number.NEGATIVE_INFINITY,
        });
      }
      const asNumbers = run(events, (e) => e.key);
      const asStrings = run(events, (e) => String(e.key));
      assert.ok(asNumbers.length > 1_000, `seed ${seed}: ${asNumbers.length} matches and timeouts`);
      assert.deepEqual(asNumbers, asStrings, `seed ${seed}`);
    }
  });
});
