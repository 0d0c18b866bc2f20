// Timestamp order across a task's input partitions on the real broker: a task reading two topics
// takes their records lowest timestamp first, and maxTaskIdleMs waits for an empty partition.
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams, Serdes, StreamsBuilder } from '../../src/index.ts';
import { produce, stopAfterEach, tempStateDir, testBrokers, uniqueName, waitFor } from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));

interface Seen {
  value: string;
  at: number;
}

/** One task (both topics have one partition) whose records are noted in processing order. */
async function start(name: string, extra: { maxTaskIdleMs?: number } = {}) {
  const left = await topics.create(`${name}-left`, 1);
  const right = await topics.create(`${name}-right`, 1);
  const applicationId = uniqueName(`${name}-app`);
  topics.cleanUpPrefix(applicationId);
  const seen: Seen[] = [];
  const builder = new StreamsBuilder();
  builder
    .stream<string, string>([left, right], { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .foreach((_k, v) => {
      seen.push({ value: v, at: Date.now() });
    });
  const app = new KafkaStreams(builder.build(), {
    applicationId,
    brokers: testBrokers(),
    stateDir: tempStateDir(),
    commitIntervalMs: 200,
    logger: 'warn',
    ...extra,
  });
  apps.push(app);
  return { left, right, app, seen };
}

const records = (side: string, timestamps: number[]) =>
  timestamps.map((timestamp) => ({ key: side, value: `${side}:${timestamp}`, timestamp }));

describe('PartitionGroup on the broker', () => {
  it('processes two input partitions of one task in timestamp order', async () => {
    const { left, right, app, seen } = await start('order');
    const n = 300;
    const base = Date.now() - 10 * 60_000;
    // Produced one topic after the other, so a fetch hands them over partition by partition.
    await produce(
      left,
      records(
        'left',
        Array.from({ length: n }, (_, i) => base + 2 * i),
      ),
    );
    await produce(
      right,
      records(
        'right',
        Array.from({ length: n }, (_, i) => base + 2 * i + 1),
      ),
    );
    await app.start();
    await waitFor(() => seen.length >= 2 * n, 60_000, 'all records processed');
    const stamps = seen.map((s) => Number(s.value.split(':')[1]));
    expect(stamps).toEqual(Array.from({ length: 2 * n }, (_, i) => base + i));
  });

  it('maxTaskIdleMs waits for an empty partition, then goes on without it', async () => {
    const idle = 4_000;
    const { left, right, app, seen } = await start('idle', { maxTaskIdleMs: idle });
    await produce(left, records('left', [1_000, 3_000]));
    await app.start();
    await waitFor(() => app.state === 'RUNNING', 60_000, 'RUNNING');
    // Within the idle time, the empty partition gets a record between the two of the other.
    await produce(right, records('right', [2_000]));
    await waitFor(() => seen.length >= 3, 60_000, 'the three records processed');
    expect(seen.map((s) => s.value)).toEqual(['left:1000', 'right:2000', 'left:3000']);
    // The last one waited for the (again empty) right partition for the idle time.
    expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(idle - 50);
  });
});
