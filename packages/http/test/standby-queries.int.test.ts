// Interactive queries on a standby (issue 37) over two instances of one app on the real broker,
// numStandbyReplicas 1: while the instance that runs a key's task is down (static members: the
// group keeps its assignment for the session timeout, so no failover yet), the other instance
// answers the key from its standby: in process with `enableStaleStores`, over HTTP flagged stale.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  KafkaStreams,
  QueryableStoreTypes,
  type ReadOnlyKeyValueStore,
  Serdes,
  StreamsBuilder,
  type Topology,
} from '@kstreams/core';
import { afterAll, describe, expect, it } from 'vitest';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../../../scripts/test/kafka.ts';
import { type StreamsHttpServer, startHttpServer } from '../src/index.ts';

const topics = topicsForThisFile();

function counts(input: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .groupByKey()
    .count({ storeName: 'counts' });
  return builder.build();
}

const until = async (cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('a key whose active instance is down', () => {
  const apps: KafkaStreams[] = [];
  const servers: StreamsHttpServer[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close({ timeoutMs: 20_000, leaveGroup: true })));
    await Promise.all(servers.map((s) => s.close()));
  });

  it('is answered by its standby on the other instance, stale', async () => {
    const input = await topics.create('standby-iq-in', 2);
    const applicationId = uniqueName('standby-iq-app');
    topics.cleanUpPrefix(applicationId);
    for (let i = 0; i < 2; i++) {
      let app: KafkaStreams | undefined;
      const server = await startHttpServer({ app: () => app, port: 0, host: '127.0.0.1' });
      servers.push(server);
      app = new KafkaStreams(counts(input), {
        applicationId,
        brokers: testBrokers(),
        applicationServer: `127.0.0.1:${server.port}`,
        groupInstanceId: `${applicationId}-${i}`,
        numStandbyReplicas: 1,
        processingGuarantee: 'exactly_once_v2',
        commitIntervalMs: 200,
        // The down instance keeps its tasks this long: the window in which only its standby answers.
        consumer: { sessionTimeoutMs: 60_000 },
        stateDir: join(tmpdir(), uniqueName(`standby-iq-state-${i}`)),
        logger: 'warn',
      });
      apps.push(app);
    }
    const [down, up] = apps as [KafkaStreams, KafkaStreams];
    await Promise.all(apps.map((a) => a.start()));
    const hostOf = (i: number) => `127.0.0.1:${servers[i]!.port}`;
    await until(
      () =>
        apps.every(
          (a) =>
            a.state === 'RUNNING' &&
            a.metadataForLocalThreads()[0]!.activeTasks.length === 1 &&
            a.metadataForLocalThreads()[0]!.standbyTasks.length === 1,
        ),
      'one active and one standby on each instance',
    );
    // A key of the task the instance to go down runs.
    let key = '';
    for (let i = 0; key === ''; i++) {
      const meta = await up.queryMetadataForKey('counts', `word-${i}`, Serdes.String());
      if (meta.host === hostOf(0)) {
        expect(meta.standbyHosts).toEqual([hostOf(1)]);
        key = `word-${i}`;
      }
    }
    const producer = testKafka().producer();
    await producer.connect();
    await producer.send({ topic: input, messages: Array.from({ length: 7 }, () => ({ key, value: 'x' })) });
    await producer.disconnect();
    const stale = () =>
      up.store<ReadOnlyKeyValueStore<string, number>>('counts', QueryableStoreTypes.keyValueStore(), {
        enableStaleStores: true,
      });
    await until(() => stale().get(key) === 7, 'the standby to hold the count');
    // The instance without the active has no answer unless stale stores are enabled.
    expect(up.store<string, number>('counts').get(key)).toBeUndefined();

    // The standby and its lag, in /status and as a Prometheus metric.
    const status = (await (await fetch(`http://${hostOf(1)}/status`)).json()) as {
      threads: Array<{
        standbyTasks: Array<{ taskId: string; topicPartitions: Array<{ lag: number | null }> }>;
      }>;
    };
    const standbyId = status.threads[0]!.standbyTasks[0]!.taskId;
    expect(standbyId).toBe(down.metadataForLocalThreads()[0]!.activeTasks[0]!.taskId);
    await until(async () => {
      const metrics = await (await fetch(`http://${hostOf(1)}/metrics`)).text();
      return new RegExp(
        `kstreams_restore_consumer_records_lag\\{[^}]*task_id="${standbyId}"[^}]*\\} 0\\b`,
      ).test(metrics);
    }, 'the standby lag metric at 0');

    // Down: a static member that does not leave; its HTTP server is gone too.
    await down.close({ timeoutMs: 20_000 });
    await servers[0]!.close();
    const meta = await up.queryMetadataForKey('counts', key, Serdes.String());
    expect(meta.host).toBe(hostOf(0));
    expect(stale().get(key)).toBe(7);
    const res = await fetch(`http://${hostOf(1)}/stores/counts/keys/${key}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      store: 'counts',
      key,
      value: 7,
      host: hostOf(0),
      stale: true,
      answeredBy: hostOf(1),
    });
  }, 120_000);
});
