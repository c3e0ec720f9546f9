// Changelog messages read back: the last value per key group wins, tombstones remove, bad records name their offset.
import assert from 'node:assert/strict';
import { serialize } from 'node:v8';
import { describe, it } from 'node:test';
import type { ClientMessage } from '../../connectors/kafka/kafka-client.ts';
import { encodeKeyGroup } from '../../state/key-group-format.ts';
import { ConfigurationError } from '../../core/errors.ts';
import {
  ChangelogDecodeError,
  changelogTopicConfig,
  decode,
  emptyContents,
  sorted,
  type ChangelogTopicPlan,
} from './task-changelog.ts';

const topic: ChangelogTopicPlan = {
  name: 'job-count-changelog',
  uid: 'count',
  partitions: 4,
  maxParallelism: 128,
};

function message(offset: number, key: number[] | null, value: Uint8Array | null): ClientMessage {
  return {
    topic: topic.name,
    partition: 2,
    offset,
    key: key === null ? null : Buffer.from(key),
    value: value === null ? null : Buffer.from(value),
  };
}

const state = (n: number): Uint8Array =>
  encodeKeyGroup([
    {
      name: 'count',
      kind: 'value',
      format: 2,
      nsOf: new Uint32Array([0]),
      keys: ['k'],
      values: [n],
      namespaces: [undefined],
    },
  ]);
const timers = new Uint8Array(serialize([['window-timers', 0, 9_999, 'k', 'k', new Uint8Array()]]));

describe('changelog messages read back', () => {
  it('keeps the last value of each key group and kind; a tombstone is kept as null (it removes what a local store holds); the input state is kept as is', () => {
    const into = emptyContents();
    decode(message(0, [1, 0, 0, 5], state(1)), topic, into);
    decode(message(1, [1, 1, 0, 5], timers), topic, into);
    decode(message(3, [1, 0, 0, 5], state(2)), topic, into);
    decode(message(4, [1, 0, 0, 127], state(7)), topic, into);
    decode(message(5, [1, 0, 0, 127], null), topic, into);
    const channels = { producers: [{ producer: '0_0/double', watermarks: [10], status: [1] }] };
    decode(message(6, [1, 2, 0, 0], new Uint8Array(serialize(channels))), topic, into);
    assert.deepEqual([...into.keyedState.keys()], [5, 127]);
    assert.equal(into.keyedState.get(127), null);
    assert.deepEqual(
      sorted(into.keyedState).map((g) => g.keyGroup),
      [5],
    );
    assert.deepEqual(into.keyedState.get(5), state(2));
    assert.deepEqual(into.timers.get(5), timers);
    assert.deepEqual(into.input, channels);
    assert.equal(into.messages, 6);
    assert.equal(
      into.bytes,
      6 * 4 +
        2 * state(1).byteLength +
        timers.byteLength +
        state(7).byteLength +
        serialize(channels).byteLength,
    );
  });

  const bad: [string, number[] | null, Uint8Array | null, string][] = [
    ['no key', null, state(1), 'its key is absent, not 4 bytes'],
    ['a short key', [1, 0, 5], state(1), 'its key is 3 bytes, not 4 bytes'],
    ['another format', [2, 0, 0, 5], state(1), 'its key is of format 2; this version reads format 1'],
    ['an unknown kind', [1, 3, 0, 5], state(1), 'its key names the unknown kind 3'],
    ['a key group too high', [1, 0, 0, 128], state(1), 'key group 128 is not below the max parallelism 128'],
    [
      'state bytes that are not a key group',
      [1, 0, 0, 5],
      new Uint8Array(serialize('x')),
      'the keyed state of key group 5: Key group 5: the snapshot bytes are not a list of states',
    ],
    [
      'timers that are not a list',
      [1, 1, 0, 9],
      new Uint8Array(serialize({})),
      'the timers of key group 9: the timers are not a list',
    ],
    ['bytes v8 cannot read', [1, 1, 0, 9], new Uint8Array([1, 2, 3]), 'the timers of key group 9: '],
    [
      'an input state without producers',
      [1, 2, 0, 0],
      new Uint8Array(serialize({})),
      'the input state has no list of producers',
    ],
  ];
  for (const [what, key, value, reason] of bad)
    it(`fails on ${what}, naming topic, partition and offset`, () => {
      assert.throws(
        () => decode(message(41, key, value), topic, emptyContents()),
        (error: unknown) =>
          error instanceof ChangelogDecodeError &&
          error.message.startsWith(
            `Changelog record job-count-changelog-2@41 could not be decoded: ${reason}`,
          ) &&
          error.offset === 41,
      );
    });

  it('creates changelog topics compacted with small segments; a job may change them but not drop compaction', () => {
    assert.deepEqual(changelogTopicConfig(), {
      'cleanup.policy': 'compact',
      'segment.bytes': '1048576',
      'segment.ms': '60000',
      'min.cleanable.dirty.ratio': '0.1',
      'message.timestamp.type': 'CreateTime',
    });
    assert.equal(changelogTopicConfig({ 'segment.bytes': '8388608' })['segment.bytes'], '8388608');
    for (const policy of ['delete', 'compact,delete', 'compact, delete'])
      assert.throws(
        () => changelogTopicConfig({ 'cleanup.policy': policy }),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          error.message ===
            `Cluster mode: changelogTopicConfig sets cleanup.policy '${policy}'; changelog topics must be 'compact' ` +
              '(a restore reads the whole partition: deleted segments would lose state)',
      );
  });
});
