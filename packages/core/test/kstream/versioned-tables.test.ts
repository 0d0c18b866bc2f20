// Versioned stores through the DSL and the Processor API on the TopologyTestDriver (broker-free):
// a versioned table's updates and its changelog, a temporal stream-table join, the Processor API's
// VersionedKeyValueStore, the changelog topic's compaction lag, and the errors of bad arguments.
import { describe, expect, it } from 'vitest';
import {
  Materialized,
  PUT_RETURN_CODE_NOT_PUT,
  PUT_RETURN_CODE_VALID_TO_UNDEFINED,
  Serdes,
  Stores,
  StreamsBuilder,
  TopologyError,
  type VersionedKeyValueStore,
} from '../../src/index.ts';
import type { ProcessorContext } from '../../src/processor/processor.ts';
import type { Record } from '../../src/processor/record.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

const S = Serdes.String();
const config = { applicationId: 'versioned', defaultKeySerde: S, defaultValueSerde: S } as never;

describe('versioned tables', () => {
  it('a temporal join reads the table as of the stream record; the changelog carries every put', async () => {
    const builder = new StreamsBuilder();
    const prices = builder.table<string, string>(
      'prices',
      {},
      Materialized.as(Stores.inMemoryVersionedKeyValueStore('prices-store', 100)),
    );
    builder
      .stream<string, string>('orders')
      .leftJoin(prices, (order, price) => `${order}@${price}`)
      .to('out');
    const driver = new TopologyTestDriver(builder.build(), config);
    const pricesIn = driver.createInputTopic('prices', S, S);
    const orders = driver.createInputTopic('orders', S, S);
    await pricesIn.pipeInput('p', '10', 10);
    await pricesIn.pipeInput('p', '30', 30);
    await pricesIn.pipeInput('p', '20', 20); // out of order: history only
    await pricesIn.pipeInput('p', null, 40);
    for (const t of [5, 15, 25, 35, 45]) await orders.pipeInput('p', `o${t}`, t);
    await pricesIn.pipeInput('p', '200', 200);
    await orders.pipeInput('p', 'o99', 99); // older than the retention: the latest is newer
    await pricesIn.pipeInput('p', 'late', 50); // older than the retention: dropped
    const out = driver.createOutputTopic('out', S, S).readValuesToList();
    expect(out).toEqual(['o5@null', 'o15@10', 'o25@20', 'o35@30', 'o45@null', 'o99@null']);
    const changelog = driver
      .createOutputTopic('versioned-prices-store-changelog', S, S)
      .readRecordsToList()
      .map((r) => `${r.value}@${r.timestamp}`);
    expect(changelog).toEqual(['10@10', '30@30', '20@20', 'null@40', '200@200', 'late@50']);
    await driver.close();
  });

  it("the Processor API's VersionedKeyValueStore: return codes, history, delete", async () => {
    const builder = new StreamsBuilder();
    builder.addStateStore(
      Stores.versionedKeyValueStoreBuilder(Stores.persistentVersionedKeyValueStore('v', 1000), S, S),
    );
    const seen: string[] = [];
    builder.stream<string, string>('in').process(() => {
      let store!: VersionedKeyValueStore<string, string>;
      return {
        init(context: ProcessorContext<never, never>) {
          store = context.getStateStore('v');
        },
        process(record: Record<string, string>) {
          const code = store.put(record.key, record.value, record.timestamp);
          const then = store.get(record.key, record.timestamp - 1);
          seen.push(`${code}:${then?.value ?? '-'}:${store.get(record.key)?.value}`);
          if (record.value === 'c') seen.push(`deleted ${store.delete(record.key, 25)?.value}`);
        },
      };
    }, 'v');
    const driver = new TopologyTestDriver(builder.build(), config);
    const input = driver.createInputTopic('in', S, S);
    await input.pipeInput('k', 'a', 10);
    await input.pipeInput('k', 'c', 30);
    await input.pipeInput('k', 'b', 20);
    await input.pipeInput('k', 'z', 5000);
    await input.pipeInput('k', 'old', 3000);
    expect(seen).toEqual([
      `${PUT_RETURN_CODE_VALID_TO_UNDEFINED}:-:a`,
      `${PUT_RETURN_CODE_VALID_TO_UNDEFINED}:a:c`,
      'deleted a',
      '25:a:c',
      `${PUT_RETURN_CODE_VALID_TO_UNDEFINED}:c:z`,
      `${PUT_RETURN_CODE_NOT_PUT}:-:z`,
    ]);
    await driver.close();
  });

  it("the changelog topic is compacted after the history retention plus a day, as Kafka Streams'", () => {
    const builder = new StreamsBuilder();
    builder.table('t', {}, Materialized.as(Stores.persistentVersionedKeyValueStore('vt', 60_000)));
    const stores = builder
      .build()
      .subtopologies('app')
      .flatMap((s) => s.stores);
    expect(stores).toEqual([{ name: 'vt', changelogTopic: 'app-vt-changelog', historyRetentionMs: 60_000 }]);
  });

  it('bad arguments say what to change', () => {
    expect(() => Stores.persistentVersionedKeyValueStore('v', -1)).toThrow(TopologyError);
    expect(() => Stores.persistentVersionedKeyValueStore('v', 10, 0)).toThrow(/segmentIntervalMs/);
    expect(() => Stores.inMemoryVersionedKeyValueStore('', 10)).toThrow(/needs a name/);
  });
});
