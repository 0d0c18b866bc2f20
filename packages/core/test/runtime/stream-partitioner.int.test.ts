// StreamPartitioner on the real broker (issue 38): a sink writes each record to the partition(s)
// its partitioner chose (one, a multicast set, none), read back per partition by kafkajs and by a
// Java consumer (kafka-clients' KafkaConsumer, scripts/differential/WindowedReader.java); a
// repartition with numberOfPartitions 3 is created with 3 partitions and filled as its own
// partitioner says; the record sent nowhere counts in the dropped records. A join of such a topic
// with a table of another count does not start (Kafka Streams' co-partitioning message).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runJava } from '../../../../scripts/differential/java.ts';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams, Serdes, type StreamPartitioner, StreamsBuilder } from '../../src/index.ts';
import {
  produce,
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
const javaReader = fileURLToPath(
  new URL('../../../../scripts/differential/WindowedReader.java', import.meta.url),
);

/** "all" to every partition, "drop" to none, a number to itself modulo the count. */
const byNumber: StreamPartitioner<string, string> = (_topic, _key, value, numPartitions) => {
  if (value === 'all') return new Set(Array.from({ length: numPartitions }, (_, i) => i));
  if (value === 'drop') return new Set<number>();
  return Number(value) % numPartitions;
};
/** On the repartition topic: a number to itself modulo the count, the rest to partition 0. */
const spread: StreamPartitioner<string, string> = (_topic, _key, value, n) =>
  /^[0-9]+$/.test(value) ? Number(value) % n : 0;

describe('StreamPartitioner on the broker', () => {
  it('writes each record to the partitions its partitioner chose, where a Java consumer reads it; a repartition with numberOfPartitions 3 has 3', async () => {
    const { input, output, applicationId } = await topics.forApp('sp', 2, 4);
    const builder = new StreamsBuilder();
    builder
      .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      .repartition({ name: 'spread', numberOfPartitions: 3, streamPartitioner: spread })
      .to(output, { streamPartitioner: byNumber });
    const app = new KafkaStreams(builder.build(), {
      applicationId,
      brokers: testBrokers(),
      // Exactly once: a task that is moved in the first rebalance leaves no duplicate behind, so
      // that each topic holds exactly the records the partitioners placed.
      processingGuarantee: 'exactly_once',
      stateDir: tempStateDir(),
      logger: 'warn',
    });
    apps.push(app);
    const values = [...Array.from({ length: 20 }, (_, i) => String(i)), 'all', 'drop'];
    await produce(
      input,
      values.map((value, i) => ({ key: `k${i}`, value })),
    );
    await app.start();

    // The output: a number in its partition modulo 4, "all" in each of the 4, "drop" nowhere.
    const expected = [
      ...Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: String(i), partition: i % 4 })),
      ...[0, 1, 2, 3].map((partition) => ({ key: 'k20', value: 'all', partition })),
    ];
    const byPartitionAndKey = (
      a: { partition: number; key: string },
      b: { partition: number; key: string },
    ) => a.partition - b.partition || a.key.localeCompare(b.key);
    const read = await readTopic(output, (records) => records.length >= expected.length, { settleMs: 2_000 });
    expect(
      read
        .map((r) => ({ key: r.key, value: r.value.toString(), partition: r.partition }))
        .sort(byPartitionAndKey),
    ).toEqual([...expected].sort(byPartitionAndKey));

    // Kafka's own consumer finds them in the same partitions.
    const java = JSON.parse(runJava(javaReader, [testBrokers().join(','), output, 'string'])) as Array<{
      key: string;
      value: string;
      partition: number;
    }>;
    expect(
      java.map(({ key, value, partition }) => ({ key, value, partition })).sort(byPartitionAndKey),
    ).toEqual([...expected].sort(byPartitionAndKey));

    // The repartition topic was created with its own count, and filled as its partitioner said.
    const repartitionTopic = `${applicationId}-spread-repartition`;
    const admin = testKafka().admin();
    await admin.connect();
    const { topics: meta } = await admin.fetchTopicMetadata({ topics: [repartitionTopic] });
    await admin.disconnect();
    expect(meta[0]!.partitions).toHaveLength(3);
    const repartitioned = await readTopic(repartitionTopic, (records) => records.length >= values.length, {
      settleMs: 1_000,
    });
    expect(
      repartitioned
        .map((r) => ({ key: r.key, value: r.value.toString(), partition: r.partition }))
        .sort(byPartitionAndKey),
    ).toEqual(
      values
        .map((value, i) => ({
          key: `k${i}`,
          value,
          partition: /^[0-9]+$/.test(value) ? Number(value) % 3 : 0,
        }))
        .sort(byPartitionAndKey),
    );

    // The record sent to no partition is counted as dropped.
    const dropped = () =>
      app
        .metadataForLocalThreads()
        .flatMap((thread) => thread.activeTasks)
        .reduce((sum, task) => sum + task.droppedRecordsTotal, 0);
    await waitFor(() => dropped() === 1, 30_000, 'the record sent nowhere counted as dropped');
  }, 180_000);

  it('refuses to start a join whose repartition topic has a count of its own that differs from the table’s', async () => {
    const input = await topics.create('sp-join-in', 2);
    const table = await topics.create('sp-join-table', 2);
    const output = await topics.create('sp-join-out', 2);
    const applicationId = uniqueName('partitioner-join-app');
    topics.cleanUpPrefix(applicationId);
    const S = { keySerde: Serdes.String(), valueSerde: Serdes.String() };
    const builder = new StreamsBuilder();
    builder
      .stream(input, S)
      .repartition({ name: 'three', numberOfPartitions: 3 })
      .join(builder.table(table, S), (a: string, b: string) => `${a}${b}`)
      .to(output);
    const app = new KafkaStreams(builder.build(), {
      applicationId,
      brokers: testBrokers(),
      stateDir: tempStateDir(),
      logger: 'silent',
    });
    apps.push(app);
    await expect(app.start()).rejects.toThrow(
      `Number of partitions [3] of repartition topic [${applicationId}-three-repartition] doesn't match number of partitions [2] of the source topic`,
    );
  }, 60_000);
});
