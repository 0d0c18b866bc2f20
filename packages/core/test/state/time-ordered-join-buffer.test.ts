// The stream-side buffer of a stream-table join with a grace period (KIP-923): its order, what it
// refuses, and its index after a rollback; and the DSL's checks of Joined.gracePeriodMs.
import { InMemoryKeyValueStore, TransactionalBuffer } from '@kstreams/state-store';
import { describe, expect, it } from 'vitest';
import { Materialized, StreamsBuilder } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { Stores } from '../../src/state/index.ts';
import {
  type BufferedStreamRecord,
  TimeOrderedJoinBuffer,
} from '../../src/state/time-ordered-join-buffer.ts';

const S = Serdes.String();
const context = (timestamp: number, offset = 0) => ({
  timestamp,
  offset,
  topic: 'left',
  partition: 0,
  headers: {},
});

async function newBuffer() {
  const bytes = new InMemoryKeyValueStore('b');
  await bytes.open();
  const tx = new TransactionalBuffer(bytes);
  return { tx, buffer: new TimeOrderedJoinBuffer<string, string>('b', tx, S, S) };
}

describe('TimeOrderedJoinBuffer', () => {
  it('releases records by time, then key bytes, once stream time passes them by the grace', async () => {
    const { buffer } = await newBuffer();
    await buffer.load();
    const out: string[] = [];
    const take = (r: BufferedStreamRecord<string, string>) =>
      out.push(`${r.key}:${r.value}@${r.context.timestamp}`);
    expect(buffer.put('k', 'v30', context(30), 10)).toBe(true);
    expect(buffer.put('k', 'v22', context(22), 10)).toBe(true);
    expect(buffer.put('b', 'b22', context(22), 10)).toBe(true);
    buffer.evictExpired(10, take);
    expect(out).toEqual([]);
    expect(buffer.put('a', 'a41', context(41), 10)).toBe(true);
    buffer.evictExpired(10, take);
    // Stream time 41 - grace 10 = 31: 22 (b before k) and 30 leave.
    expect(out).toEqual(['b:b22@22', 'k:v22@22', 'k:v30@30']);
    // Older than 31: refused, for the join to take at once.
    expect(buffer.put('k', 'late', context(30), 10)).toBe(false);
    expect(buffer.numRecords()).toBe(1);
  });

  it('rebuilds its index from the committed entries after a rollback', async () => {
    const { tx, buffer } = await newBuffer();
    await buffer.load();
    buffer.put('k', 'kept', context(10), 5);
    await tx.commit();
    buffer.put('k', 'dropped', context(12), 5);
    tx.rollback();
    expect(buffer.needsLoad).toBe(true);
    await buffer.load();
    expect(buffer.numRecords()).toBe(1);
    const out: string[] = [];
    buffer.put('k', 'next', context(100), 5);
    buffer.evictExpired(5, (r) => out.push(r.value));
    expect(out).toEqual(['kept']);
  });
});

describe('Joined.gracePeriodMs', () => {
  it('needs a versioned table that keeps at least the grace period', () => {
    const plain = new StreamsBuilder();
    const table = plain.table<string, string>('t', { keySerde: S, valueSerde: S });
    expect(() =>
      plain.stream<string, string>('s').join(table, (a, b) => a + b, { gracePeriodMs: 10 }),
    ).toThrow(/KTable must be versioned to use a grace period.*persistentVersionedKeyValueStore/);
    const short = new StreamsBuilder();
    const versioned = short.table<string, string>(
      't',
      { keySerde: S, valueSerde: S },
      Materialized.as(Stores.persistentVersionedKeyValueStore('vt', 100)),
    );
    expect(() =>
      short.stream<string, string>('s').leftJoin(versioned, (a, b) => a + b, { gracePeriodMs: 101 }),
    ).toThrow(/History retention must be at least grace period: store 'vt' keeps 100 ms/);
  });

  it('adds the <join name>-Buffer store with its changelog', () => {
    const b = new StreamsBuilder();
    const versioned = b.table<string, string>(
      't',
      { keySerde: S, valueSerde: S },
      Materialized.as(Stores.persistentVersionedKeyValueStore('vt', 100)),
    );
    b.stream<string, string>('s').join(versioned, (a, x) => a + x, { name: 'gj', gracePeriodMs: 50 });
    const description = b.build().describe().toString();
    expect(description).toMatch(
      /Processor: gj \(stores: \[vt, gj-Buffer\]\)|Processor: gj \(stores: \[gj-Buffer, vt\]\)/,
    );
  });
});
