// GlobalKTable through the test driver: piping into the global topic updates the global store at
// once; stream-global joins pick the table key with the key selector and need no repartition.
import { afterEach, describe, expect, it } from 'vitest';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

const S = Serdes.String();
let driver: TopologyTestDriver | undefined;

afterEach(async () => {
  await driver?.close();
  driver = undefined;
});

function enrichment(leftJoin: boolean) {
  const b = new StreamsBuilder();
  const customers = b.globalTable<string, string>('customers', {}, { storeName: 'customers-store' });
  // Orders are keyed by order id; the value names the customer.
  const orders = b.stream<string, string>('orders').mapValues((v) => v);
  const joined = leftJoin
    ? orders.leftJoin(
        customers,
        (_orderId, customer) => customer,
        (order, name) => `${order}->${name}`,
      )
    : orders.join(
        customers,
        (_orderId, customer) => customer,
        (orderId: string, order: string, name: string) => `${orderId}:${order}->${name}`,
      );
  joined.to('out');
  return b.build();
}

describe('GlobalKTable', () => {
  it('is kept out of the sub-topologies (no tasks, no changelog, no repartition)', () => {
    const topology = enrichment(false);
    const subs = topology.subtopologies('app');
    expect(subs).toHaveLength(1);
    expect(subs[0]!.sourceTopics).toEqual(['orders']);
    expect(subs[0]!.stores).toEqual([]);
    expect(topology.internalBuilder.globalSourceTopics()).toEqual(['customers']);
  });

  it('joins each stream record with the row its key selector picks; updates only update', async () => {
    driver = new TopologyTestDriver(enrichment(false), { defaultKeySerde: S, defaultValueSerde: S });
    const customers = driver.createInputTopic('customers', S, S);
    const orders = driver.createInputTopic('orders', S, S);
    await customers.pipeInput('c1', 'Alice', 1);
    await orders.pipeInput('o1', 'c1', 5);
    await orders.pipeInput('o2', 'c2', 6);
    await customers.pipeInput('c2', 'Bob', 7);
    await customers.pipeInput('c1', 'Alicia', 8);
    await orders.pipeInput('o3', 'c1', 2);
    await customers.pipeInput('c1', null, 9);
    await orders.pipeInput('o4', 'c1', 10);
    await orders.pipeInput('o5', null, 11);
    expect(
      driver
        .createOutputTopic('out', S, S)
        .readRecordsToList()
        .map((r) => [r.key, r.value, r.timestamp]),
    ).toEqual([
      ['o1', 'o1:c1->Alice', 5],
      ['o3', 'o3:c1->Alicia', 2],
    ]);
    // o5's null value gives no join key: dropped and counted.
    expect(driver.droppedRecordsTotal).toBe(1);
    expect(driver.getKeyValueStore<string, string>('customers-store').get('c2')).toBe('Bob');
    expect(driver.getKeyValueStore<string, string>('customers-store').get('c1')).toBeUndefined();
  });

  it('left join: a stream record without a row is joined with null', async () => {
    driver = new TopologyTestDriver(enrichment(true), { defaultKeySerde: S, defaultValueSerde: S });
    await driver.createInputTopic('customers', S, S).pipeInput('c1', 'Alice', 1);
    const orders = driver.createInputTopic('orders', S, S);
    await orders.pipeInput('o1', 'c1', 2);
    await orders.pipeInput('o2', 'c9', 3);
    expect(driver.createOutputTopic('out', S, S).readValuesToList()).toEqual(['c1->Alice', 'c9->null']);
  });
});
