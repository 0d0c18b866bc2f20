// TimestampExtractor on the real broker: the records' times come from the values (the output's
// timestamps show it), and an extractor that fails puts the app in ERROR at once, with nothing
// retried past the record (Kafka Streams: a StreamsException from the extractor ends the thread).
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import {
  KafkaStreams,
  Serdes,
  StreamsBuilder,
  type TimestampExtractor,
  TimestampExtractorError,
} from '../../src/index.ts';
import { produce, readTopic, stopAfterEach, tempStateDir, testBrokers, waitFor } from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const S = Serdes.String();

/** The value's number is the event time; 'boom' makes the extractor throw. */
const valueTime: TimestampExtractor = {
  extract: (record) => {
    if (record.value === 'boom') throw new Error('no event time in boom');
    return Number(record.value);
  },
};

async function run(prefix: string, values: string[]) {
  const { input, output, applicationId } = await topics.forApp(`${prefix}`, 1);
  await produce(
    input,
    values.map((value) => ({ key: 'k', value, timestamp: 5 })),
  );
  const builder = new StreamsBuilder();
  builder.stream(input, { keySerde: S, valueSerde: S, timestampExtractor: valueTime }).to(output);
  const app = new KafkaStreams(builder.build(), {
    applicationId,
    brokers: testBrokers(),
    stateDir: tempStateDir(),
    defaultKeySerde: S,
    defaultValueSerde: S,
    commitIntervalMs: 200,
    logger: 'silent',
  });
  apps.push(app);
  await app.start();
  return { app, output };
}

describe('TimestampExtractor on the broker', () => {
  it('the output carries the extracted times, not the Kafka timestamps', async () => {
    const { output } = await run('te-times', ['1000', '3000', '2000']);
    const out = await readTopic(output, (r) => r.length >= 3);
    expect(out.map((r) => [r.value.toString(), r.timestamp])).toEqual([
      ['1000', 1000],
      ['3000', 3000],
      ['2000', 2000],
    ]);
  });

  it('an extractor that throws: ERROR at once with a TimestampExtractorError, no retries', async () => {
    const { app, output } = await run('te-boom', ['1000', 'boom', '2000']);
    await waitFor(() => app.state === 'ERROR', 60_000, 'ERROR');
    expect(app.error).toBeInstanceOf(TimestampExtractorError);
    expect(app.error?.message).toMatch(
      /Fatal user code error in TimestampExtractor callback for record .*@1/,
    );
    expect(app.metrics().rollbacks).toBe(1);
    // The record before it may have gone out; the one after never does.
    const out = await readTopic(output, () => false, { timeoutMs: 3_000 });
    expect(out.map((r) => r.value.toString())).not.toContain('2000');
  });
});
