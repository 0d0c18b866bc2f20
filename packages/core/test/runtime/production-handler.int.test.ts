// The production exception handler for a record the broker refuses (larger than the output
// topic's max.message.bytes), as in Kafka Streams 4.4: the handler is asked about that record
// alone ('continue': the others are written, exactly once), and by default the thread fails with
// a ProductionError that says what to change. And a global stream thread's error reaches the
// uncaught exception handler, which cannot replace that thread (REPLACE_THREAD stops the client).
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import {
  KafkaStreams,
  type ProductionHandlerResponse,
  RecordSendError,
  Serdes,
  StreamsBuilder,
  type StreamThreadExceptionResponse,
} from '../../src/index.ts';
import {
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  uniqueName,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const S = Serdes.String();

/** 30 records k0..k29; k15's value becomes 5,000 bytes, over the output topic's 1,024. */
const INPUT = Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: i === 15 ? 'big' : `v${i}` }));

async function smallOutputTopic(): Promise<string> {
  // Two partitions: a flush's call carries both, and the broker writes the one it does not refuse.
  const output = await topics.create('ph-out', 2);
  const admin = await topics.admin();
  // ConfigResourceTypes.TOPIC = 2.
  await admin.alterConfigs({
    validateOnly: false,
    resources: [{ type: 2, name: output, configEntries: [{ name: 'max.message.bytes', value: '1024' }] }],
  });
  return output;
}

async function run(
  production: ((error: Error) => ProductionHandlerResponse) | undefined,
  uncaught: StreamThreadExceptionResponse = 'SHUTDOWN_CLIENT',
) {
  const input = await topics.create('ph-in', 1);
  const output = await smallOutputTopic();
  await produce(input, INPUT);
  const applicationId = uniqueName('ph-app');
  topics.cleanUpPrefix(applicationId);
  const b = new StreamsBuilder();
  b.stream<string, string>(input)
    .mapValues((v) => (v === 'big' ? 'x'.repeat(5_000) : v))
    .to(output);
  const asked: Array<{ error: Error; key: string }> = [];
  const app = new KafkaStreams(b.build(), {
    applicationId,
    brokers: testBrokers(),
    defaultKeySerde: S,
    defaultValueSerde: S,
    processingGuarantee: 'exactly_once_v2',
    stateDir: tempStateDir(),
    logger: 'silent',
    ...(production === undefined
      ? {}
      : {
          productionExceptionHandler: (error: Error, context: { record: { key: unknown } }) => {
            asked.push({ error, key: String(context.record.key) });
            return production(error);
          },
        }),
  });
  apps.push(app);
  const handled: Error[] = [];
  app.setUncaughtExceptionHandler((error) => {
    handled.push(error);
    return uncaught;
  });
  await app.start();
  return { app, output, asked, handled };
}

describe('production exception handler: a record the broker refuses', () => {
  it("'continue': asked about that record alone; the 29 others are written exactly once", async () => {
    const { app, output, asked } = await run(() => 'continue');
    const records = await readTopic(output, (r) => r.length >= 29, { timeoutMs: 60_000, settleMs: 2_000 });
    expect(records.map((r) => r.key).sort()).toEqual(
      INPUT.filter((_, i) => i !== 15)
        .map((r) => r.key)
        .sort(),
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]!.key).toBe('k15');
    expect(asked[0]!.error).toBeInstanceOf(RecordSendError);
    expect((asked[0]!.error as RecordSendError).code).toBe('MESSAGE_TOO_LARGE');
    expect(app.state).toBe('RUNNING');
  });

  it("default ('fail'): the thread stops with an error naming max.message.bytes, no retry", async () => {
    const { app, output, handled } = await run(undefined);
    await waitFor(() => app.state === 'ERROR', 60_000, 'ERROR');
    expect(handled).toHaveLength(1);
    expect(handled[0]!.name).toBe('ProductionError');
    expect(handled[0]!.message).toMatch(/topic 'ph-out-[^']*' partition [01] failed \(MESSAGE_TOO_LARGE\)/);
    expect(handled[0]!.message).toMatch(/raise the topic's max\.message\.bytes/);
    // The failed transaction was never committed.
    expect(await readTopic(output, () => false, { timeoutMs: 2_000 })).toEqual([]);
  });
});

describe('global stream thread', () => {
  it('an error reaches the uncaught exception handler; REPLACE_THREAD stops the client', async () => {
    const globalTopic = await topics.create('ph-global', 1);
    const input = await topics.create('ph-global-in', 1);
    const applicationId = uniqueName('ph-global-app');
    topics.cleanUpPrefix(applicationId);
    await produce(globalTopic, [{ key: 'a', value: Buffer.from([0, 0, 0, 1]) }]);
    const b = new StreamsBuilder();
    b.globalTable<string, number>(
      globalTopic,
      { keySerde: S, valueSerde: Serdes.Int32() },
      { storeName: 'g' },
    );
    b.stream<string, string>(input).to(await topics.create('ph-global-out', 1));
    const app = new KafkaStreams(b.build(), {
      applicationId,
      brokers: testBrokers(),
      defaultKeySerde: S,
      defaultValueSerde: S,
      stateDir: tempStateDir(),
      logger: 'silent',
    });
    apps.push(app);
    const handled: Error[] = [];
    app.setUncaughtExceptionHandler((error) => {
      handled.push(error);
      return 'REPLACE_THREAD';
    });
    await app.start();
    // Three bytes are no Int32: under the default logAndFail the global thread fails.
    await produce(globalTopic, [{ key: 'b', value: Buffer.from([1, 2, 3]) }]);
    await waitFor(() => app.state === 'ERROR', 60_000, 'ERROR');
    expect(handled).toHaveLength(1);
    expect(handled[0]!.name).toBe('DeserializationError');
    expect(app.error).toBe(handled[0]);
  });
});
