// Headers in state on the real broker (issue 39, KIP-1271/1285): a Processor API headers store
// keeps each record's trace context; its changelog records carry the headers, with the plain value
// and the record's timestamp, and a new instance (empty state directory) restores them from the
// changelog. Beside it, a count on a DSL store made headers-aware by dslStoreFormat 'HEADERS'
// logs and restores as a timestamped store does.
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import {
  KafkaStreams,
  type KeyValueStore,
  type ProcessorContext,
  type Record,
  Serdes,
  StateQueryRequest,
  Stores,
  StreamsBuilder,
  TimestampedKeyQuery,
  type ValueTimestampHeaders,
} from '../../src/index.ts';
import { produce, readTopic, stopAfterEach, tempStateDir, testBrokers, waitFor } from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const S = Serdes.String();
const L = Serdes.Long();
const trace = (span: string) => `00-4bf92f3577b34da6a3ce929d0e0e4736-${span}-01`;

class KeepWithHeaders {
  private store!: KeyValueStore<string, ValueTimestampHeaders<string>>;
  init(ctx: ProcessorContext<string, string>): void {
    this.store = ctx.getStateStore('kept');
  }
  process(record: Record<string, string>): void {
    this.store.put(record.key, { value: record.value, timestamp: record.timestamp, headers: record.headers });
  }
}

function topology(input: string, output: string) {
  const builder = new StreamsBuilder();
  builder.addStateStore(Stores.timestampedKeyValueStoreWithHeadersBuilder('kept', S, S));
  const stream = builder.stream<string, string>(input, { keySerde: S, valueSerde: S });
  stream.process(() => new KeepWithHeaders(), 'kept');
  stream.groupByKey().count({ storeName: 'counts' }).toStream().to(output, { valueSerde: L });
  return builder.build();
}

describe('headers in state on the broker', () => {
  it('logs the stored headers on the changelog and restores them on a new instance', async () => {
    const { input, output, applicationId } = await topics.forApp('headers', 1);
    const newApp = () => {
      const app = new KafkaStreams(topology(input, output), {
        applicationId,
        brokers: testBrokers(),
        stateDir: tempStateDir(),
        commitIntervalMs: 200,
        dslStoreFormat: 'HEADERS',
      });
      apps.push(app);
      return app;
    };
    await produce(input, [
      { key: 'a', value: 'v1', timestamp: 1_000, headers: { traceparent: trace('00f067aa0ba902b7') } },
      { key: 'b', value: 'v2', timestamp: 2_000, headers: { tenant: 'blue' } },
      { key: 'a', value: 'v3', timestamp: 3_000, headers: { traceparent: trace('00f067aa0ba902b8') } },
    ]);
    const first = newApp();
    await first.start();
    // The record cache may merge a's two updates: wait for its count of 2.
    await readTopic(output, (rs) => rs.some((r) => r.key === 'a' && r.value.readBigInt64BE() === 2n));
    await first.close();

    // The changelog as Kafka Streams writes it: plain value, stored timestamp and headers.
    const kept = await readTopic(`${applicationId}-kept-changelog`, (rs) =>
      rs.some((r) => r.value.toString() === 'v3'),
    );
    const last = new Map(kept.map((r) => [r.key, r]));
    expect(last.get('a')).toMatchObject({ value: Buffer.from('v3'), timestamp: 3_000 });
    expect(last.get('a')!.headers).toEqual({ traceparent: Buffer.from(trace('00f067aa0ba902b8')) });
    expect(last.get('b')!.headers).toEqual({ tenant: Buffer.from('blue') });
    // The DSL store's changelog: the plain count and its timestamp, no headers (stored ones are empty).
    const counts = await readTopic(`${applicationId}-counts-changelog`, (rs) =>
      rs.some((r) => r.key === 'a' && r.value.readBigInt64BE() === 2n),
    );
    expect(counts.every((r) => Object.keys(r.headers).length === 0)).toBe(true);
    expect(counts.find((r) => r.key === 'a' && r.value.readBigInt64BE() === 2n)?.timestamp).toBe(3_000);

    // A new instance with an empty state directory restores both stores from their changelogs.
    const second = newApp();
    await second.start();
    await waitFor(() => second.state === 'RUNNING', 60_000, 'RUNNING after the restore');
    const restored = second.store<string, ValueTimestampHeaders<string>>('kept');
    expect(await restored.get('a')).toEqual({
      value: 'v3',
      timestamp: 3_000,
      headers: { traceparent: Buffer.from(trace('00f067aa0ba902b8')) },
    });
    expect((await restored.get('b'))?.headers).toEqual({ tenant: Buffer.from('blue') });
    expect(await second.store<string, number>('counts').get('a')).toBe(2);
    // IQv2 reads the headers-aware DSL store as a timestamped one.
    const answer = await second.query(
      StateQueryRequest.inStore('counts').withQuery(TimestampedKeyQuery.withKey<string, number>('a')),
    );
    expect(answer.getOnlyPartitionResult()?.getResult()).toEqual({ value: 2, timestamp: 3_000 });
  }, 120_000);
});
