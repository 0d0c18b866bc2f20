// IQv2 through the plugin over two instances of one app on the real broker: a query with a
// PositionBound right after a write, sent to the instance that does not own the key, is forwarded
// to the owner, waits there until the owner's store has the write, and returns it.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaStreams, Materialized, Serdes, Stores, StreamsBuilder, type Topology } from '@kstreams/core';
import { afterAll, describe, expect, it } from 'vitest';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../../../scripts/test/kafka.ts';
import { type StateQueryResponse, type StreamsHttpServer, startHttpServer } from '../src/index.ts';

const topics = topicsForThisFile();

function prices(input: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .table(
      input,
      { keySerde: Serdes.String(), valueSerde: Serdes.String() },
      Materialized.as(Stores.persistentVersionedKeyValueStore('prices', 86_400_000)),
    )
    .toStream()
    .groupByKey()
    .count({ storeName: 'updates' });
  return builder.build();
}

describe('POST /stores/:store/query (IQv2)', () => {
  const apps: KafkaStreams[] = [];
  const servers: StreamsHttpServer[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close({ timeoutMs: 20_000 })));
    await Promise.all(servers.map((s) => s.close()));
  });

  it('returns a write on the other instance once the owner reached its position', async () => {
    const input = await topics.create('iq2-in', 2);
    const applicationId = uniqueName('iq2-app');
    topics.cleanUpPrefix(applicationId);
    for (let i = 0; i < 2; i++) {
      let app: KafkaStreams | undefined;
      const server = await startHttpServer({ app: () => app, port: 0, host: '127.0.0.1' });
      servers.push(server);
      app = new KafkaStreams(prices(input), {
        applicationId,
        brokers: testBrokers(),
        applicationServer: `127.0.0.1:${server.port}`,
        stateDir: join(tmpdir(), uniqueName(`iq2-state-${i}`)),
        // Commits seconds apart: a query right after a write finds the store behind the write.
        commitIntervalMs: 5_000,
        logger: 'silent',
      });
      apps.push(app);
    }
    await Promise.all(apps.map((a) => a.start()));
    const hostOf = (i: number) => `127.0.0.1:${servers[i]!.port}`;
    // Wait until each instance runs one of the two partitions.
    const deadline = Date.now() + 60_000;
    let owners: Array<string | undefined> = [];
    while (Date.now() < deadline) {
      if (apps.every((a) => a.state === 'RUNNING')) {
        owners = (await apps[0]!.queryMetadataForPartitions('prices')).map((m) => m.host);
        if (new Set(owners).size === 2 && owners.every((h) => h !== undefined)) break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(new Set(owners)).toEqual(new Set([hostOf(0), hostOf(1)]));
    // A key of the partition instance 0 runs; the query goes to instance 1.
    const ownerIndex = 0;
    const askIndex = 1;
    let key = '';
    let partition = -1;
    for (let i = 0; partition < 0; i++) {
      const meta = await apps[0]!.queryMetadataForKey('prices', `sku-${i}`, Serdes.String());
      if (meta.host === hostOf(ownerIndex))
        ({ partition, key } = { partition: meta.partition, key: `sku-${i}` });
    }
    const producer = testKafka().producer();
    await producer.connect();
    const write = async (value: string, timestamp: number) => {
      const [meta] = await producer.send({
        topic: input,
        messages: [{ key, value, partition, timestamp: String(timestamp) }],
      });
      return Number(meta!.baseOffset);
    };
    const post = async (body: unknown) => {
      const res = await fetch(`http://${hostOf(askIndex)}/stores/prices/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { code: res.status, body: (await res.json()) as StateQueryResponse & { message?: string } };
    };
    const t0 = Date.now() - 60_000;
    await write('10.00', t0);
    // Once the first price is committed, the next commit is commitIntervalMs away.
    const latest = async (extra: object = {}) =>
      (await post({ query: { type: 'VersionedKeyQuery', key }, ...extra })).body.partitions[partition];
    while ((await latest())?.result === null) await new Promise((r) => setTimeout(r, 20));
    const offset = await write('12.50', t0 + 1_000);
    await producer.disconnect();
    // Without a bound the owner answers at once, from its last commit: the old price.
    expect((await latest())?.result).toMatchObject({ value: '10.00' });
    // With the write's position as the bound and no wait: not up to the bound yet.
    const noWait = await latest({ positionBound: { [input]: { [partition]: offset } } });
    expect(noWait?.failureReason).toBe('NOT_UP_TO_BOUND');

    const bound = { [input]: { [partition]: offset } };
    const fresh = await post({
      query: { type: 'VersionedKeyQuery', key },
      positionBound: bound,
      timeoutMs: 30_000,
    });
    expect(fresh.code).toBe(200);
    const answer = fresh.body.partitions[partition]!;
    expect(answer).toMatchObject({ success: true, host: hostOf(ownerIndex) });
    // The latest version has no validTo (absent from the JSON).
    expect(answer.result).toEqual({ value: '12.50', timestamp: t0 + 1_000 });
    expect(answer.position[input]![partition]).toBeGreaterThanOrEqual(offset);
    expect(fresh.body.position).toEqual(answer.position);

    // The older version, as of a time before the update: the history is queryable too.
    const before = await post({ query: { type: 'VersionedKeyQuery', key, asOf: t0 + 500 } });
    expect(before.body.partitions[partition]!.result).toEqual({
      value: '10.00',
      timestamp: t0,
      validTo: t0 + 1_000,
    });
    const history = await post({ query: { type: 'MultiVersionedKeyQuery', key, order: 'ASCENDING' } });
    expect(
      (history.body.partitions[partition]!.result as Array<{ value: string }>).map((v) => v.value),
    ).toEqual(['10.00', '12.50']);

    // A bound no write has reached: NOT_UP_TO_BOUND after the wait, with where the store stands.
    const ahead = await post({
      query: { type: 'VersionedKeyQuery', key },
      positionBound: { [input]: { [partition]: offset + 1_000 } },
      timeoutMs: 300,
    });
    expect(ahead.body.partitions[partition]).toMatchObject({
      success: false,
      failureReason: 'NOT_UP_TO_BOUND',
      host: hostOf(ownerIndex),
    });
    expect(ahead.body.partitions[partition]!.position[input]![partition]).toBeGreaterThanOrEqual(offset);

    // A range query over the count store: both partitions, each answered by its owner.
    const counts = await fetch(`http://${hostOf(askIndex)}/stores/updates/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: { type: 'RangeQuery' } }),
    });
    const all = (await counts.json()) as StateQueryResponse;
    expect(Object.keys(all.partitions)).toEqual(['0', '1']);
    expect(new Set(Object.values(all.partitions).map((r) => r.host))).toEqual(
      new Set([hostOf(0), hostOf(1)]),
    );
    expect(all.partitions[partition]!.result).toEqual([{ key, value: 2 }]);

    // The wrong query for the store kind, and a bad body.
    const wrong = await post({ query: { type: 'KeyQuery', key } });
    expect(wrong.body.partitions[partition]!.failureReason).toBe('UNKNOWN_QUERY_TYPE');
    const bad = await post({ query: { type: 'KeyQuerry', key } });
    expect(bad.code).toBe(400);
    expect(bad.body.message).toContain('query.type must be one of KeyQuery');
  }, 180_000);
});
