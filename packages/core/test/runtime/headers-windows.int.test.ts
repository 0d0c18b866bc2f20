// Headers in state for window, session and stream-stream join stores on the real broker (issue 39,
// KIP-1285 as Kafka Streams 4.4 ships it): with dslStoreFormat 'HEADERS' a join's stores log each
// record's headers and timestamp on their changelogs, the windowed and session aggregations log
// their plain values (a merged session's tombstone: the merging record's headers), and a new instance (empty state directory) restores all three from the
// changelogs: the counts and sessions read back, and a late partner still joins a restored record.
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import {
  JoinWindows,
  KafkaStreams,
  QueryableStoreTypes,
  Serdes,
  SessionWindows,
  StreamsBuilder,
  TimeWindows,
} from '../../src/index.ts';
import { produce, readTopic, stopAfterEach, tempStateDir, testBrokers, waitFor } from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const S = Serdes.String();
const trace = (span: string) => `00-4bf92f3577b34da6a3ce929d0e0e4736-${span}-01`;

function topology(input: string, right: string, output: string) {
  const builder = new StreamsBuilder();
  const left = builder.stream<string, string>(input, { keySerde: S, valueSerde: S });
  const grouped = left.groupByKey();
  grouped.windowedBy(TimeWindows.ofSizeAndGrace(10_000, 60_000)).count({ storeName: 'win' });
  grouped
    .windowedBy(SessionWindows.ofInactivityGapAndGrace(5_000, 60_000))
    .reduce((a, v) => `${a}+${v}`, { storeName: 'sessions', valueSerde: S });
  left
    .join(
      builder.stream<string, string>(right, { keySerde: S, valueSerde: S }),
      (a, b) => `${a}+${b}`,
      JoinWindows.ofTimeDifferenceAndGrace(60_000, 60_000),
      { storeName: 'pair', keySerde: S, valueSerde: S, otherValueSerde: S },
    )
    .to(output, { keySerde: S, valueSerde: S });
  return builder.build();
}

describe('headers-aware window, session and join stores on the broker', () => {
  it('log to their changelogs and restore on a new instance', async () => {
    const { input, output, applicationId } = await topics.forApp('headers-windows', 1);
    const right = await topics.create('headers-windows-right', 1);
    const newApp = () => {
      const app = new KafkaStreams(topology(input, right, output), {
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
      { key: 'a', value: 'x', timestamp: 1_000, headers: { traceparent: trace('00f067aa0ba902b7') } },
      { key: 'a', value: 'y', timestamp: 3_000, headers: { tenant: 'blue' } },
    ]);
    const first = newApp();
    await first.start();
    const joinChangelog = `${applicationId}-pair-this-join-store-changelog`;
    const logged = await readTopic(joinChangelog, (rs) => rs.length >= 2);
    await first.close();

    // Kafka Streams 4.4's join store changelog: the plain value, the record's timestamp and headers.
    expect(logged.map((r) => [r.value.toString(), r.timestamp, r.headers])).toEqual([
      ['x', 1_000, { traceparent: Buffer.from(trace('00f067aa0ba902b7')) }],
      ['y', 3_000, { tenant: Buffer.from('blue') }],
    ]);
    const sessions = await readTopic(`${applicationId}-sessions-changelog`, (rs) =>
      rs.some((r) => r.value.toString() === 'x+y'),
    );
    // Puts carry the stored (empty) headers; the tombstone of the session y merged away carries
    // y's timestamp and headers, as Kafka Streams 4.4's ChangeLoggingSessionBytesStoreWithHeaders.
    // (readTopic gives a tombstone's null value as empty bytes.)
    const puts = sessions.filter((r) => r.value.length > 0);
    expect(puts.every((r) => Object.keys(r.headers).length === 0)).toBe(true);
    const tombstones = sessions.filter((r) => r.value.length === 0);
    expect(tombstones.map((r) => [r.timestamp, r.headers])).toEqual([
      [3_000, { tenant: Buffer.from('blue') }],
    ]);

    // A new instance restores the three stores; a right record then joins both restored ones.
    const second = newApp();
    await second.start();
    await waitFor(() => second.state === 'RUNNING', 60_000, 'RUNNING after the restore');
    const win = second.store('win', QueryableStoreTypes.windowStore<string, number>());
    expect(await win.fetch('a', 0)).toBe(2);
    const restoredSessions = second.store('sessions', QueryableStoreTypes.sessionStore<string, string>());
    const found: string[] = [];
    for await (const { value } of restoredSessions.fetch('a')) found.push(value);
    expect(found).toEqual(['x+y']);
    await produce(right, [{ key: 'a', value: 'R', timestamp: 4_000, headers: { tenant: 'green' } }]);
    const joined = await readTopic(output, (rs) => rs.length >= 2);
    expect(joined.map((r) => [r.value.toString(), r.headers])).toEqual([
      ['x+R', { tenant: Buffer.from('green') }],
      ['y+R', { tenant: Buffer.from('green') }],
    ]);
  }, 120_000);
});
