// GET /jobs/:jid/vertices/:vid/cep-partial-matches: a CEP operator's live partial matches per key, on one thread
// and across worker threads, with records cut or hidden as the exception history shows them; in worker mode also
// the workers' live subtask figures and gauges.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JobClient } from '../../src/execution/job-client.ts';
import { vertexId } from '../../src/web/job-views.ts';
import { waitFor } from '../support/wait-for.ts';
import { EVENTS, startPartialMatchJob } from './cep-partial-match-job.ts';

function vertex(client: JobClient, name: string): string {
  return vertexId(client.running.graph.nodes.find((n) => n.name === name)!);
}

async function partialMatches(client: JobClient, query = ''): Promise<{ status: number; body: any }> {
  const url = new URL(
    `/jobs/${client.jobId}/vertices/${vertex(client, 'sequences')}/cep-partial-matches${query}`,
    client.webUiUrl,
  );
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

/**
 * Waits until all three keys are there, c's start (the last event) is queued and no other key has queued events:
 * the watermark after it (6999) has then fed every earlier event to the NFA. On worker threads each key's subtask
 * gets its events and watermarks on its own channel, so one subtask settling says nothing of the other's: a key
 * whose events are still in flight is absent, not settled.
 */
async function settled(client: JobClient, query = '', timeoutMs?: number): Promise<any> {
  return waitFor(
    'the events to reach the CEP operator',
    async () => {
      const { status, body } = await partialMatches(client, query);
      if (status !== 200) return undefined;
      const keys = body.subtasks.flatMap((s: any) => s.keys);
      const c = keys.find((k: any) => k.key === '"c"');
      return keys.length === 3 &&
        c?.queuedEvents === 1 &&
        keys.every((k: any) => k === c || k.queuedEvents === 0)
        ? body
        : undefined;
    },
    timeoutMs,
  );
}

const a = {
  key: '"a"',
  queuedEvents: 0,
  partialMatches: [
    {
      state: 'end',
      startTimestamp: 1000,
      numEvents: 2,
      events: [
        { stage: 'start', timestamp: 1000, record: '{"key":"a","name":"start","ts":1000}' },
        { stage: 'middle', timestamp: 2000, record: '{"key":"a","name":"middle","ts":2000}' },
      ],
    },
  ],
};
const b = {
  key: '"b"',
  queuedEvents: 0,
  partialMatches: [
    {
      state: 'middle',
      startTimestamp: 1500,
      numEvents: 1,
      events: [{ stage: 'start', timestamp: 1500, record: '{"key":"b","name":"start","ts":1500}' }],
    },
    {
      state: 'middle',
      startTimestamp: 2500,
      numEvents: 1,
      events: [{ stage: 'start', timestamp: 2500, record: '{"key":"b","name":"start","ts":2500}' }],
    },
  ],
};
const c = { key: '"c"', queuedEvents: 1, partialMatches: [] };

describe('CEP partial matches over REST', () => {
  it('shows each key with its partial matches, their NFA states and events, oldest first, and its queued events', async () => {
    const client = await startPartialMatchJob({ port: 0 });
    try {
      const body = await settled(client);
      assert.equal(body.id, vertex(client, 'sequences'));
      assert.equal(body.name, 'sequences');
      assert.deepEqual(body.subtasks, [{ subtask: 0, numKeys: 3, truncated: false, keys: [a, b, c] }]);

      // Bounded: the oldest key only, and one event per partial match.
      const first = await partialMatches(client, '?max-keys=1&max-events=1');
      assert.equal(first.status, 200);
      assert.deepEqual(first.body.subtasks, [
        {
          subtask: 0,
          numKeys: 3,
          truncated: true,
          keys: [
            { ...a, partialMatches: [{ ...a.partialMatches[0]!, events: [a.partialMatches[0]!.events[0]] }] },
          ],
        },
      ]);
      const bad = await partialMatches(client, '?max-keys=-1');
      assert.deepEqual(bad, {
        status: 400,
        body: { errors: ['max-keys and max-events must be whole numbers from 0 to 10000'] },
      });

      // The plan marks the CEP vertex; other vertices have no partial matches.
      const plan: any = await (await fetch(new URL(`/jobs/${client.jobId}/plan`, client.webUiUrl))).json();
      assert.deepEqual(
        plan.plan.nodes.filter((n: any) => n.cep === true).map((n: any) => n.description),
        ['sequences'],
      );
      const discard = await fetch(
        new URL(
          `/jobs/${client.jobId}/vertices/${vertex(client, 'discard')}/cep-partial-matches`,
          client.webUiUrl,
        ),
      );
      assert.equal(discard.status, 404);
      assert.deepEqual(await discard.json(), {
        errors: [`Vertex ${vertex(client, 'discard')} ('discard') is not a CEP operator`],
      });
    } finally {
      await client.cancel();
    }
  });

  it('cuts records at maxRecordLength and hides them with showRecords: false, as the exception history does', async () => {
    const cut = await startPartialMatchJob({ port: 0, exceptionRecords: { maxRecordLength: 20 } });
    try {
      const body = await settled(cut);
      assert.deepEqual(
        body.subtasks[0].keys[0].partialMatches[0].events.map((e: any) => e.record),
        ['{"key":"a","name":"s… (36 characters)', '{"key":"a","name":"m… (37 characters)'],
      );
    } finally {
      await cut.cancel();
    }
    const hidden = await startPartialMatchJob({ port: 0, exceptionRecords: { showRecords: false } });
    try {
      const body = await settled(hidden);
      assert.deepEqual(
        body.subtasks[0].keys.map((k: any) => [k.key, k.partialMatches.map((m: any) => m.events)]),
        [
          [
            '"a"',
            [
              [
                { stage: 'start', timestamp: 1000, record: null },
                { stage: 'middle', timestamp: 2000, record: null },
              ],
            ],
          ],
          [
            '"b"',
            [
              [{ stage: 'start', timestamp: 1500, record: null }],
              [{ stage: 'start', timestamp: 2500, record: null }],
            ],
          ],
          ['"c"', []],
        ],
      );
    } finally {
      await hidden.cancel();
    }
  });

  it('collects the partial matches of subtasks on worker threads', async () => {
    const { client } = await import('./cep-partial-match-worker-job.ts');
    try {
      // The workers start first: on a loaded machine that alone has taken over 15 s.
      const body = await settled(client, '', 90_000);
      // b and c hash to subtask 0 (on worker 1), a to subtask 1 (on worker 2); the main thread holds neither.
      assert.deepEqual(body.subtasks, [
        { subtask: 0, numKeys: 2, truncated: false, keys: [b, c] },
        { subtask: 1, numKeys: 1, truncated: false, keys: [a] },
      ]);

      // The workers' live figures reach the REST API after each metrics tick (so they lag the partial matches
      // above by up to one tick): both subtasks with the records they read (all six events between them) and
      // their gauges (b's two partial matches on subtask 0, a's one on subtask 1).
      const base = `/jobs/${client.jobId}/vertices/${vertex(client, 'sequences')}`;
      const gauges = `${base}/metrics?get=0.numPartialMatches,1.numPartialMatches`;
      const details = await waitFor('both workers figures after the events', async () => {
        const values = (await (await fetch(new URL(gauges, client.webUiUrl))).json()) as { value: string }[];
        if (values.map((v) => v.value).join() !== '2,1') return undefined;
        return (await (await fetch(new URL(base, client.webUiUrl))).json()) as {
          subtasks: { subtask: number; metrics: Record<string, number> }[];
        };
      });
      assert.deepEqual(
        details.subtasks.map((s) => s.subtask),
        [0, 1],
      );
      assert.equal(
        details.subtasks.reduce((n, s) => n + s.metrics['read-records']!, 0),
        EVENTS.length,
      );
    } finally {
      await client.cancel();
    }
  });
});
