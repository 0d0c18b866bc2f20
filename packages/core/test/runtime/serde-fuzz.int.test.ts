// A fault from issue 42: bytes no serde can read, on the real broker. 100,000 records go to one
// topic per built-in serde (key or value), a fixed share of them bytes that serde refuses: random
// lengths, truncated and oversized numbers, Longs outside the safe range, text that is no UUID,
// cut-off JSON, windowed keys shorter than their timestamps. Under logAndContinue with a
// dead-letter queue the app never fails, counts every bad record once, writes every good one,
// and the dead-letter queue holds exactly the bad ones, with their bytes and KIP-1034's headers.
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams, type Serde, Serdes, StreamsBuilder, WindowedSerdes } from '../../src/index.ts';
import {
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  testKafka,
  uniqueName,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const TOTAL = 100_000;

const rand = (n: number) => Math.floor(Math.random() * n);
/** Random bytes of any length 0..40 but `except`. */
const wrongLength = (except: number) => {
  let n = rand(41);
  if (n === except) n += 1;
  return randomBytes(n);
};
const fixed = (n: number, write: (b: Buffer) => void) => {
  const b = Buffer.alloc(n);
  write(b);
  return b;
};

/** Per serde: how a good record and a bad one are made (a third of them bad). */
interface Case {
  name: string;
  part: 'key' | 'value';
  serde: Serde<unknown>;
  good(): Buffer;
  bad(): Buffer;
}

const cases: Case[] = [
  {
    name: 'int32',
    part: 'value',
    serde: Serdes.Int32() as Serde<unknown>,
    good: () => randomBytes(4),
    bad: () => wrongLength(4),
  },
  {
    name: 'int64',
    part: 'value',
    serde: Serdes.Int64() as Serde<unknown>,
    good: () => randomBytes(8),
    bad: () => wrongLength(8),
  },
  {
    name: 'long',
    part: 'value',
    serde: Serdes.Long() as Serde<unknown>,
    good: () => fixed(8, (b) => b.writeBigInt64BE(BigInt(rand(2 ** 30)) * BigInt(rand(2 ** 22)) - 2n ** 50n)),
    // Half too short or long, half 8 bytes beyond ±2^53 (Serdes.Int64's range, not Long's).
    bad: () =>
      Math.random() < 0.5
        ? wrongLength(8)
        : fixed(8, (b) => b.writeBigInt64BE(2n ** 60n + BigInt(rand(1e9)))),
  },
  {
    name: 'float64',
    part: 'value',
    serde: Serdes.Float64() as Serde<unknown>,
    good: () => randomBytes(8),
    bad: () => wrongLength(8),
  },
  {
    name: 'uuid',
    part: 'value',
    serde: Serdes.Uuid() as Serde<unknown>,
    good: () => Buffer.from(randomUUID(), 'latin1'),
    // A UUID with one character that is no hex digit, or random bytes of another length.
    bad: () =>
      Math.random() < 0.5 ? Buffer.from(`${randomUUID().slice(0, 35)}g`, 'latin1') : wrongLength(36),
  },
  {
    name: 'json',
    part: 'value',
    serde: Serdes.Json() as Serde<unknown>,
    good: () => Buffer.from(JSON.stringify({ id: rand(1e6), tags: ['a', String(rand(9))], ok: true })),
    // Truncated JSON: the object is never closed.
    bad: () => Buffer.from(JSON.stringify({ id: rand(1e6), tags: ['a'] }).slice(0, -1 - rand(5))),
  },
  {
    name: 'time-windowed',
    part: 'key',
    serde: WindowedSerdes.timeWindowedSerdeFrom(Serdes.String(), 60_000) as Serde<unknown>,
    good: () =>
      Buffer.concat([randomBytes(rand(12)), fixed(8, (b) => b.writeBigInt64BE(BigInt(rand(1e12))))]),
    bad: () => randomBytes(rand(8)),
  },
  {
    name: 'session-windowed',
    part: 'key',
    serde: WindowedSerdes.sessionWindowedSerdeFrom(Serdes.String()) as Serde<unknown>,
    good: () => Buffer.concat([randomBytes(rand(12)), randomBytes(16)]),
    bad: () => randomBytes(rand(16)),
  },
  {
    // Strings and Bytes read any bytes: all of them good.
    name: 'string',
    part: 'value',
    serde: Serdes.String() as Serde<unknown>,
    good: () => randomBytes(rand(64)),
    bad: () => randomBytes(rand(64)),
  },
];

describe('100,000 records of bytes the built-in serdes refuse', () => {
  it('logAndContinue with a dead-letter queue: no failure, every bad record counted once and dead-lettered with its headers', async () => {
    const applicationId = uniqueName('fuzz-app');
    topics.cleanUpPrefix(applicationId);
    const output = await topics.create('fuzz-out', 2);
    const dlq = await topics.create('fuzz-dlq', 1);
    const inputs = new Map<string, string>();
    for (const c of cases) inputs.set(c.name, await topics.create(`fuzz-${c.name}`, 2));

    const builder = new StreamsBuilder();
    for (const c of cases) {
      builder
        .stream(inputs.get(c.name)!, {
          keySerde: c.part === 'key' ? c.serde : Serdes.Bytes(),
          valueSerde: c.part === 'value' ? c.serde : Serdes.Bytes(),
        })
        .map(() => ({ key: c.name, value: 'ok' }))
        .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.String() });
    }
    const bad = new Set<string>();
    /** Each bad record's bytes (a key's as the reader's text), for the dead-letter comparison. */
    const badBytes = new Map<string, { part: 'key' | 'value'; bytes: Buffer }>();
    const good = new Map<string, number>();
    const perCase = Math.ceil(TOTAL / cases.length);
    let id = 0;
    for (const c of cases) {
      const records = Array.from({ length: perCase }, () => {
        const n = id++;
        // The string case has no bad bytes: every record of it is good.
        const isBad = c.name !== 'string' && n % 3 === 0;
        if (isBad) bad.add(String(n));
        else good.set(c.name, (good.get(c.name) ?? 0) + 1);
        const bytes = isBad ? c.bad() : c.good();
        if (isBad) badBytes.set(String(n), { part: c.part, bytes });
        const other = randomBytes(4);
        return {
          key: c.part === 'key' ? bytes : other,
          value: c.part === 'value' ? bytes : other,
          headers: { id: String(n) },
        };
      });
      await produceWithHeaders(inputs.get(c.name)!, records);
    }

    const app = new KafkaStreams(builder.build(), {
      applicationId,
      brokers: testBrokers(),
      stateDir: tempStateDir(),
      logger: 'silent',
      commitIntervalMs: 1_000,
      deserializationExceptionHandler: 'logAndContinue',
      errors: { deadLetterQueueTopic: dlq },
    });
    apps.push(app);
    await app.start();
    const goodTotal = [...good.values()].reduce((a, b) => a + b, 0);
    const started = Date.now();
    await waitFor(
      () => app.metrics().processedRecords >= id || app.state === 'ERROR',
      240_000,
      `all ${id} records processed`,
    );
    const ms = Date.now() - started;
    expect(app.state).toBe('RUNNING');
    expect(app.metrics()).toMatchObject({ skippedRecords: bad.size, deadLetterRecords: bad.size });

    const out = await readTopic(output, (rs) => rs.length >= goodTotal, {
      timeoutMs: 120_000,
      settleMs: 1_000,
    });
    const perName = new Map<string, number>();
    for (const r of out) perName.set(r.key, (perName.get(r.key) ?? 0) + 1);
    expect(perName).toEqual(good);

    const dead = await readTopic(dlq, (rs) => rs.length >= bad.size, { timeoutMs: 120_000, settleMs: 1_000 });
    const deadIds = dead.map((r) => String(r.headers.id));
    expect(new Set(deadIds).size).toBe(dead.length);
    expect(new Set(deadIds)).toEqual(bad);
    const topicsOf = new Set(dead.map((r) => String(r.headers['__streams.errors.topic'])));
    expect([...topicsOf].sort()).toEqual(
      cases
        .filter((c) => c.name !== 'string')
        .map((c) => inputs.get(c.name)!)
        .sort(),
    );
    for (const r of dead) {
      const original = badBytes.get(String(r.headers.id))!;
      if (original.part === 'value') expect(r.value.equals(original.bytes)).toBe(true);
      else expect(r.key).toBe(original.bytes.toString());
      expect(String(r.headers['__streams.errors.exception'])).toMatch(/Error$/);
      expect(Number(r.headers['__streams.errors.offset'])).toBeGreaterThanOrEqual(0);
    }
    console.log(
      `[serde fuzz] ${id} records (${bad.size} bad) over ${cases.length} serdes: processed in ${ms} ms, ` +
        `${out.length} written, ${dead.length} dead-lettered`,
    );
  }, 480_000);
});

/** The helpers' produce() has no headers; this sends them too, in batches. */
async function produceWithHeaders(
  topic: string,
  records: Array<{ key: Buffer; value: Buffer; headers: { [name: string]: string } }>,
): Promise<void> {
  const producer = testKafka().producer({ allowAutoTopicCreation: false });
  await producer.connect();
  for (let i = 0; i < records.length; i += 5_000)
    await producer.send({ topic, acks: -1, messages: records.slice(i, i + 5_000) });
  await producer.disconnect();
}
