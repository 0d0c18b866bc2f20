// Serde.prepare: a serde that must fetch something before it can deserialize (a Schema Registry
// serde meeting a schema id it has not cached) gets it awaited by the task for that record only;
// a failed fetch leaves deserialize to throw, so the deserialization exception handler decides.
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import type { Serde } from '../../src/serdes/serde.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

const S = Serdes.String();
const silent = pino({ level: 'silent' });

/** Bytes are "<id>:<text>"; the text's prefix for an id is "fetched" asynchronously. */
function lookupSerde(remote: Map<number, string>) {
  const cache = new Map<number, string>();
  const calls = { prepare: 0, fetched: 0 };
  const serde: Serde<string> = {
    serialize: (s) => Buffer.from(s),
    deserialize(data) {
      const [id, text] = data.toString().split(':');
      const prefix = cache.get(Number(id));
      if (prefix === undefined) throw new Error(`no schema with id ${id}`);
      return `${prefix}${text}`;
    },
    prepare(data) {
      calls.prepare += 1;
      const id = Number(data.toString().split(':')[0]);
      if (cache.has(id)) return undefined;
      return new Promise<void>((resolve) =>
        setTimeout(() => {
          const prefix = remote.get(id);
          if (prefix !== undefined) {
            calls.fetched += 1;
            cache.set(id, prefix);
          }
          resolve();
        }, 5),
      );
    },
  };
  return { serde, calls };
}

let driver: TopologyTestDriver | undefined;
afterEach(async () => {
  await driver?.close();
  driver = undefined;
});

describe('Serde.prepare', () => {
  it('is awaited before deserializing a record whose id is not cached, once per id', async () => {
    const { serde, calls } = lookupSerde(
      new Map([
        [1, 'a-'],
        [2, 'b-'],
      ]),
    );
    const builder = new StreamsBuilder();
    builder.stream('in', { keySerde: S, valueSerde: serde }).to('out', { valueSerde: S });
    driver = new TopologyTestDriver(builder.build(), { logger: silent });
    const input = driver.createInputTopic('in', S, S);
    const output = driver.createOutputTopic('out', S, S);
    for (const v of ['1:x', '1:y', '2:z', '1:w']) await input.pipeInput('k', v);
    expect(output.readValuesToList()).toEqual(['a-x', 'a-y', 'b-z', 'a-w']);
    expect(calls).toEqual({ prepare: 4, fetched: 2 });
  });

  it('a fetch that finds nothing leaves deserialize to fail, and the handler decides', async () => {
    const { serde } = lookupSerde(new Map([[1, 'a-']]));
    const builder = new StreamsBuilder();
    builder.stream('in', { keySerde: S, valueSerde: serde }).to('out', { valueSerde: S });
    driver = new TopologyTestDriver(builder.build(), {
      logger: silent,
      deserializationExceptionHandler: () => 'continue',
    });
    const input = driver.createInputTopic('in', S, S);
    const output = driver.createOutputTopic('out', S, S);
    for (const v of ['1:x', '9:lost', '1:y']) await input.pipeInput('k', v);
    expect(output.readValuesToList()).toEqual(['a-x', 'a-y']);
    expect(driver.droppedRecordsTotal).toBe(1);
  });

  it('is awaited before a source with a timestamp extractor deserializes the record for it', async () => {
    const { serde, calls } = lookupSerde(new Map([[1, '']]));
    const builder = new StreamsBuilder();
    // The event time is the value's text, readable only once the id's "schema" is fetched.
    const eventTime = { extract: (r: { value: unknown }) => Number(r.value) };
    builder
      .stream('in', { keySerde: S, valueSerde: serde, timestampExtractor: eventTime })
      .to('out', { valueSerde: S });
    driver = new TopologyTestDriver(builder.build(), { logger: silent });
    const input = driver.createInputTopic('in', S, S);
    const output = driver.createOutputTopic('out', S, S);
    await input.pipeInput('k', '1:5000', 1);
    await input.pipeInput('k', '1:7000', 2);
    expect(output.readRecordsToList().map((r) => [r.value, r.timestamp])).toEqual([
      ['5000', 5000],
      ['7000', 7000],
    ]);
    expect(calls.fetched).toBe(1);
  });

  it('is awaited before a global table deserializes a record of its topic', async () => {
    const lookup = lookupSerde(new Map([[1, '']]));
    // The store writes id 1 back (a registry serde's writer schema), so it reads it back cached.
    const serde: Serde<string> = { ...lookup.serde, serialize: (s) => Buffer.from(`1:${s}`) };
    const builder = new StreamsBuilder();
    const customers = builder.globalTable('customers', { keySerde: S, valueSerde: serde });
    builder
      .stream('orders', { keySerde: S, valueSerde: S })
      .join(
        customers,
        (_id, customer) => customer,
        (order: string, name: string) => `${order}->${name}`,
      )
      .to('out', { valueSerde: S });
    driver = new TopologyTestDriver(builder.build(), { logger: silent });
    await driver.createInputTopic('customers', S, S).pipeInput('c1', '1:ann');
    await driver.createInputTopic('orders', S, S).pipeInput('o1', 'c1');
    expect(driver.createOutputTopic('out', S, S).readValuesToList()).toEqual(['c1->ann']);
    expect(lookup.calls.fetched).toBe(1);
  });
});
