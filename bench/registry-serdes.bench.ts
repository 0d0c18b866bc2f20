// Registry serdes (issue 40): the word count in the TopologyTestDriver (no broker) with its lines
// as Avro records ({ line: string }, Confluent wire format, schema fetched once from a real
// Apicurio Registry started here) against the same lines as Serdes.Json records. The input bytes
// are encoded before timing; rounds interleave the two; medians of words per CPU-second.
// Needs Java 17 and Maven (scripts/registry builds the registry once, about two minutes).
// Environment: BENCH_LINES (default 20000), BENCH_ROUNDS (default 3).
import { type Serde, Serdes, StreamsBuilder } from '../packages/core/src/index.ts';
import { TopologyTestDriver } from '../packages/core/src/testing/index.ts';
import { avroSerde, SchemaRegistryClient } from '../packages/schema-registry/src/index.ts';
import { startRegistry } from '../scripts/registry/registry.ts';

const LINES = Number(process.env.BENCH_LINES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const S = Serdes.String();
const BYTES: Serde<Buffer> = { serialize: (b) => b, deserialize: (b) => b };
type Line = { line: string };
const lineSchema = {
  type: 'record',
  name: 'Line',
  namespace: 'bench',
  fields: [{ name: 'line', type: 'string' }],
};

async function wordsPerCpuSecond(valueSerde: Serde<Line>, input: Buffer[]): Promise<number> {
  const builder = new StreamsBuilder();
  builder
    .stream('lines', { keySerde: S, valueSerde })
    .flatMapValues((v) => v.line.split(' '))
    .groupBy((_k, word) => word)
    .count()
    .toStream()
    .to('counts', { valueSerde: Serdes.Long() });
  const driver = new TopologyTestDriver(builder.build(), { defaultKeySerde: S, defaultValueSerde: S });
  const topic = driver.createInputTopic('lines', S, BYTES);
  const cpu = process.cpuUsage();
  for (const value of input) await topic.pipeInput(null, value);
  const used = process.cpuUsage(cpu);
  await driver.close();
  return (LINES * 4) / ((used.user + used.system) / 1e6);
}

const registry = await startRegistry();
try {
  const lines = Array.from({ length: LINES }, (_, i) => ({
    line: `w${i % 97} w${i % 13} w${i % 5} w${i % 1000}`,
  }));
  const writer = avroSerde<Line>({
    registry: new SchemaRegistryClient({ url: registry.url }),
    schema: lineSchema,
  });
  await writer.init(['lines']);
  const avroInput = lines.map((l) => writer.serialize(l, 'lines'));
  const json = Serdes.Json<Line>();
  const jsonInput = lines.map((l) => json.serialize(l));
  const avro = () =>
    avroSerde<Line>({ registry: new SchemaRegistryClient({ url: registry.url }), schema: lineSchema });
  await wordsPerCpuSecond(json, jsonInput); // warm-up
  await wordsPerCpuSecond(avro(), avroInput);
  const a: number[] = [];
  const j: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    j.push(await wordsPerCpuSecond(json, jsonInput));
    a.push(await wordsPerCpuSecond(avro(), avroInput)); // a fresh client: one schema fetch per round
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const f = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
  console.log(`words/CPU-s, Serdes.Json: median ${median(j).toFixed(0)} of ${f(j)}`);
  console.log(`words/CPU-s, avroSerde:   median ${median(a).toFixed(0)} of ${f(a)}`);
  console.log(`avro / json: ${(median(a) / median(j)).toFixed(2)}`);
} finally {
  await registry.stop();
}
