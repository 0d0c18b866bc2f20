// The differential harness: every scenario through Kafka Streams' own TopologyTestDriver (one
// JVM for all of them, scripts/differential/) and through ours; the output records (topic, key,
// value, timestamp) must be the same. java, javac and mvn are on developer machines and in CI;
// only where they are missing is the comparison skipped.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  javaToolsAvailable,
  runInKafkaStreams,
  type Scenario,
  type ScenarioOutput,
} from '../../../../scripts/differential/kafka-streams.ts';
import type { Headers } from '../../src/processor/record.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';
import { ourTopology, scenarios } from './scenarios.ts';

/** Headers as UTF-8 text, as Differential.java prints them. */
function headersText(headers: Headers): Record<string, string | null> {
  const text: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) text[name] = Buffer.isBuffer(value) ? value.toString('utf8') : value;
  }
  return text;
}

async function runOurs(scenario: Scenario): Promise<ScenarioOutput[]> {
  const topology = ourTopology(scenario.topology);
  const described: ScenarioOutput[] = scenario.describe
    ? [{ topic: 'describe()', key: null, value: topology.describe().toString(), timestamp: 0 }]
    : [];
  const driver = new TopologyTestDriver(topology, {
    applicationId: 'differential',
    defaultKeySerde: Serdes.String() as never,
    defaultValueSerde: Serdes.String() as never,
    initialWallClockTimeMs: 0,
    statestoreCacheMaxBytes: scenario.cacheMaxBytes ?? 0,
    ...(scenario.dslStoreFormat === undefined ? {} : { dslStoreFormat: scenario.dslStoreFormat }),
  });
  try {
    // An input that fails the task ends the scenario, as in Differential.java.
    let failedAt: number | undefined;
    for (const [index, { topic, key, value, timestamp, headers }] of scenario.inputs.entries()) {
      try {
        await driver
          .createInputTopic(topic, Serdes.String(), Serdes.String())
          .pipeInput(key, value, timestamp, headers);
      } catch {
        failedAt = index;
        break;
      }
    }
    const failed: ScenarioOutput[] =
      failedAt === undefined
        ? []
        : [{ topic: 'error()', key: null, value: `input ${failedAt} failed`, timestamp: 0 }];
    const outputs = scenario.outputs.flatMap(({ topic, value, headers }) =>
      driver
        .createOutputTopic<string, string | number | Buffer>(
          topic,
          Serdes.String(),
          value === 'long' ? Serdes.Long() : value === 'hex' ? Serdes.Bytes() : Serdes.String(),
        )
        .readRecordsToList()
        .map((r) => ({
          topic,
          key: r.key,
          value: Buffer.isBuffer(r.value) ? r.value.toString('hex') : r.value,
          timestamp: r.timestamp,
          ...(headers === true ? { headers: headersText(r.headers) } : {}),
        })),
    );
    const formats: ScenarioOutput[] = (scenario.storeFormats ?? []).map((store) => ({
      topic: 'store-format()',
      key: store,
      value: topology.internalBuilder.storeBuilder(store)?.headers === true ? 'HEADERS' : 'DEFAULT',
      timestamp: 0,
    }));
    return [...described, ...outputs, ...formats, ...failed];
  } finally {
    await driver.close();
  }
}

describe.skipIf(!javaToolsAvailable())('same output as Kafka Streams 4.4 (TopologyTestDriver)', () => {
  let theirs: Record<string, ScenarioOutput[]>;

  beforeAll(() => {
    theirs = runInKafkaStreams(scenarios);
  }, 300_000);

  it.each(scenarios.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const expected = theirs[scenario.name];
    expect(expected, 'Kafka Streams ran the scenario').toBeDefined();
    const untimed = new Set(scenario.outputs.filter((o) => o.timestamps === false).map((o) => o.topic));
    const comparable = (records: ScenarioOutput[]) =>
      records.map((r) => (untimed.has(r.topic) ? { ...r, timestamp: 0 } : r));
    expect(comparable(await runOurs(scenario))).toEqual(comparable(expected!));
  });
});
