import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Serdes } from '@kstreams/core';
import { TopologyTestDriver } from '@kstreams/core/testing';
import type { Producer } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { BOOK_PATH, feedLines, readLines } from '../src/word-count/feeder.ts';
import { COUNTS_STORE, wordCountTopology } from '../src/word-count/topology.ts';
import { wordsOf } from '../src/word-count/words.ts';

describe('word-count topology', () => {
  it('counts lower-cased words split on \\W+, one update per word, and keeps them in the counts store', async () => {
    const driver = new TopologyTestDriver(wordCountTopology('lines', 'counts-out'), { applicationId: 'wc' });
    const lines = driver.createInputTopic('lines', Serdes.String(), Serdes.String());
    const out = driver.createOutputTopic('counts-out', Serdes.String(), Serdes.Long());
    await lines.pipeInput(null, 'In the beginning God created the heaven and the earth.');
    await lines.pipeInput(null, '  -- THE end; the_end 2nd  ');
    const updates = out.readKeyValuesToList();
    expect(updates.filter((u) => u.key === 'the').map((u) => u.value)).toEqual([1, 2, 3, 4]);
    expect(updates.map((u) => u.key)).not.toContain('');
    expect(updates.slice(-3)).toEqual([
      { key: 'end', value: 1 },
      { key: 'the_end', value: 1 },
      { key: '2nd', value: 1 },
    ]);
    const store = driver.getKeyValueStore<string, number>(COUNTS_STORE);
    expect(store.get('the')).toBe(4);
    expect(store.get('god')).toBe(1);
    expect(store.get('God')).toBeUndefined();
    await driver.close();
  });

  it('writes each count as an 8-byte big-endian int64 (what Java’s LongDeserializer reads)', async () => {
    const driver = new TopologyTestDriver(wordCountTopology('lines', 'counts-out'));
    await driver.createInputTopic('lines', Serdes.String(), Serdes.String()).pipeInput(null, 'amen amen');
    const raw = driver.createOutputTopic('counts-out', Serdes.String(), Serdes.Bytes()).readValuesToList();
    expect(raw.map((b) => b?.toString('hex'))).toEqual(['0000000000000001', '0000000000000002']);
    await driver.close();
  });

  it('agrees with wordsOf, the rule the demo and the tests compute the truth with', async () => {
    const text = ['Thou shalt not; thou SHALT!', '', "O'er the hills... 12 3-4", 'ÆON café'];
    const driver = new TopologyTestDriver(wordCountTopology('lines', 'counts-out'));
    const input = driver.createInputTopic('lines', Serdes.String(), Serdes.String());
    for (const line of text) await input.pipeInput(null, line);
    const fromTopology = driver
      .createOutputTopic('counts-out', Serdes.String(), Serdes.Long())
      .readKeyValuesToMap();
    const expected = new Map<string, number>();
    for (const word of text.flatMap(wordsOf)) expected.set(word, (expected.get(word) ?? 0) + 1);
    expect(fromTopology).toEqual(expected);
    expect(expected.get('shalt')).toBe(2);
    await driver.close();
  });
});

describe('feeder', () => {
  it('reads a file line by line, skipping empty and blank lines', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'wc-feed-')), 'text.txt');
    writeFileSync(file, 'first line\r\n\n   \nsecond line\nthird');
    const lines: string[] = [];
    for await (const line of readLines(file)) lines.push(line);
    expect(lines).toEqual(['first line', 'second line', 'third']);
  });

  it('sends null-keyed records in batches of batchSize, waiting for beforeBatch', async () => {
    const sends: Array<{ topic: string; values: string[]; keys: unknown[] }> = [];
    const producer = {
      send: async ({
        topic,
        messages,
      }: {
        topic: string;
        messages: Array<{ key: unknown; value: string }>;
      }) => {
        sends.push({ topic, values: messages.map((m) => m.value), keys: messages.map((m) => m.key) });
        return [];
      },
    } as unknown as Producer;
    const seen: number[] = [];
    const result = await feedLines(producer, 'in', ['a', 'bb', 'ccc', 'dddd', 'é'], {
      batchSize: 2,
      beforeBatch: async (sent) => {
        seen.push(sent.records);
      },
    });
    expect(sends.map((s) => s.values)).toEqual([['a', 'bb'], ['ccc', 'dddd'], ['é']]);
    expect(sends.every((s) => s.topic === 'in' && s.keys.every((k) => k === null))).toBe(true);
    expect(seen).toEqual([0, 2, 4]);
    expect(result).toEqual({ records: 5, bytes: 1 + 2 + 3 + 4 + 2 });
  });

  it('ships a book that fits the repo: under 5 MB, UTF-8, one verse per line, no verse references', () => {
    expect(statSync(BOOK_PATH).size).toBeLessThan(5 * 1024 * 1024);
    const text = readFileSync(BOOK_PATH, 'utf8');
    expect(text).not.toContain('\uFFFD');
    const lines = text.split('\n').filter((l) => l.length > 0);
    expect(lines[0]).toBe('In the beginning God created the heaven and the earth.');
    expect(lines.filter((l) => /^\d?[A-Za-z]+\d+:\d+ /.test(l))).toEqual([]);
  });
});
