// A versioned store's changelog as Kafka Streams 4.4 writes it (its TopologyTestDriver, through the
// differential harness) restores in kstreams to the very store kstreams builds itself from the same
// table updates: the same bytes under every key, so every version reads alike. (The other way
// round, kstreams writes the same changelog bytes and timestamps as Kafka Streams: the
// 'versioned table' differential scenario compares them, and test/runtime/
// versioned-java-restore.int.test.ts restores a Kafka Streams app from kstreams' changelog on the
// broker.)
import {
  encodeRestoreValue,
  InMemoryKeyValueStore,
  type KeyValueBytesStore,
  TransactionalBuffer,
  VersionedBytesStore,
  VersionedRestoreTarget,
} from '@kstreams/state-store';
import { describe, expect, it } from 'vitest';
import { javaToolsAvailable, runInKafkaStreams } from '../../../../scripts/differential/kafka-streams.ts';
import { versionedScenarios } from './scenarios-versioned.ts';

const OPTIONS = { name: 'vt', historyRetentionMs: 100 };

async function entries(store: KeyValueBytesStore): Promise<Array<[string, string]>> {
  const all: Array<[string, string]> = [];
  for await (const { key, value } of store.all()) all.push([key.toString('hex'), value.toString('hex')]);
  return all;
}

describe.skipIf(!javaToolsAvailable())('a versioned store restored from Kafka Streams’ changelog', () => {
  it('holds what kstreams builds from the same updates, every version', async () => {
    const scenario = versionedScenarios[0]!;
    const theirs = runInKafkaStreams([scenario])[scenario.name]!;
    const changelog = theirs.filter((r) => r.topic === 'differential-vt-changelog');
    // Every put is logged (KIP-889), tombstones and too-old puts included.
    expect(changelog.length).toBe(scenario.inputs.length);

    const restored = new InMemoryKeyValueStore('vt');
    await restored.open();
    await new VersionedRestoreTarget(restored, OPTIONS).writeBatch(
      changelog.map((r) => ({
        key: Buffer.from(r.key!, 'utf8'),
        value: encodeRestoreValue(r.timestamp, r.value === null ? null : Buffer.from(String(r.value), 'hex')),
      })),
    );

    // kstreams' own store: the table source puts every update with its timestamp.
    const own = new InMemoryKeyValueStore('vt');
    await own.open();
    const buffer = new TransactionalBuffer(own);
    const store = new VersionedBytesStore(buffer, OPTIONS);
    for (const { key, value, timestamp } of scenario.inputs)
      store.put(Buffer.from(key!), value === null ? null : Buffer.from(value), timestamp);
    await buffer.commit();

    expect(await entries(restored)).toEqual(await entries(own));
    // And reads alike: the latest and the version as of each time.
    const read = new VersionedBytesStore(new TransactionalBuffer(restored), OPTIONS);
    expect(read.get(Buffer.from('k'))?.value.toString()).toBe('f');
    expect(read.getAsOf(Buffer.from('k'), 205)?.value.toString()).toBe('d');
    expect(read.getAsOf(Buffer.from('j'), 160)?.value.toString()).toBe('y');
  }, 300_000);
});
