// Tests of the clickstream job on a small file: window counts, CEP matches, late clicks and malformed lines.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CollectSink, StreamExecutionEnvironment, type MalformedRecord } from '../../src/index.ts';
import { clickstream, type Click, type QuickPurchase, type UserMinute } from './clickstream.ts';

const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);
const click = (uid: string, kind: Click['kind'], page: string, seconds: number): string =>
  JSON.stringify({ uid, kind, page, ts: T0 + seconds * 1000 });

describe('clickstream job', () => {
  it('counts clicks per user-minute, finds login → buy within 5 minutes, and sets late and malformed input aside', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-clickstream-'));
    try {
      const file = join(dir, 'clicks.jsonl');
      writeFileSync(
        file,
        [
          click('ann', 'login', '/login', 0),
          click('bob', 'view', '/', 5),
          click('ann', 'view', '/product/1', 20),
          click('ann', 'buy', '/checkout', 50),
          '{"uid": "broken"',
          click('bob', 'view', '/help', 58),
          click('bob', 'login', '/login', 61),
          click('ann', 'view', '/', 130),
          click('bob', 'view', '/', 40), // 90 s behind the newest click: its minute has closed
          click('bob', 'buy', '/checkout', 61 + 301), // 301 s after the login: outside within(5 min)
        ].join('\n') + '\n',
      );
      for (const parallelism of [1, 3]) {
        const env = StreamExecutionEnvironment.create({ parallelism });
        const job = clickstream(env, file);
        const sinks = {
          minutes: new CollectSink<UserMinute>(),
          purchases: new CollectSink<QuickPurchase>(),
          late: new CollectSink<Click>(),
          malformed: new CollectSink<MalformedRecord>(),
        };
        job.perMinute.sinkTo(sinks.minutes);
        job.purchases.sinkTo(sinks.purchases);
        job.late.sinkTo(sinks.late);
        job.malformed.sinkTo(sinks.malformed);
        await env.execute('clickstream test');
        const byKey = (a: UserMinute, b: UserMinute) =>
          a.uid.localeCompare(b.uid) || a.minute.localeCompare(b.minute);
        assert.deepEqual(sinks.minutes.values.sort(byKey), [
          { uid: 'ann', minute: '09:00', clicks: 3, pages: 3 },
          { uid: 'ann', minute: '09:02', clicks: 1, pages: 1 },
          { uid: 'bob', minute: '09:00', clicks: 2, pages: 2 },
          { uid: 'bob', minute: '09:01', clicks: 1, pages: 1 },
          { uid: 'bob', minute: '09:06', clicks: 1, pages: 1 },
        ]);
        assert.deepEqual(sinks.purchases.values, [{ uid: 'ann', loginAt: T0, secondsToBuy: 50 }]);
        assert.deepEqual(
          sinks.late.values.map((c) => [c.uid, c.page]),
          [['bob', '/']],
        );
        assert.deepEqual(
          sinks.malformed.values.map((m) => [m.line, m.text]),
          [[5, '{"uid": "broken"']],
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
