// Serde.prepare micro-measure (issue 40): the word-count topology in the TopologyTestDriver (no
// broker), its input deserialized by the String serde (the synchronous path: no prepare), and by
// a String serde that has a prepare answering "cached" (what a registry serde costs once its
// schemas are cached). Rounds interleave the two; medians of records per CPU-second. Run against
// the commit before Serde.prepare (same file) for the before/after ratio of the synchronous path.
// Environment: BENCH_LINES (default 20000), BENCH_ROUNDS (default 5).
import { type Serde, Serdes, StreamsBuilder } from '../packages/core/src/index.ts';
import { TopologyTestDriver } from '../packages/core/src/testing/index.ts';

const LINES = Number(process.env.BENCH_LINES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const S = Serdes.String();
const withPrepare: Serde<string> = {
  ...S,
  serialize: S.serialize,
  deserialize: S.deserialize,
  prepare: () => undefined,
};

async function wordsPerCpuSecond(valueSerde: Serde<string>): Promise<number> {
  const builder = new StreamsBuilder();
  builder
    .stream('lines', { keySerde: S, valueSerde })
    .flatMapValues((line) => line.split(' '))
    .groupBy((_k, word) => word)
    .count()
    .toStream()
    .to('counts', { valueSerde: Serdes.Long() });
  const driver = new TopologyTestDriver(builder.build(), { defaultKeySerde: S, defaultValueSerde: S });
  const input = driver.createInputTopic('lines', S, S);
  const lines = Array.from({ length: LINES }, (_, i) => `w${i % 97} w${i % 13} w${i % 5} w${i % 1000}`);
  const cpu = process.cpuUsage();
  for (const line of lines) await input.pipeInput(null, line);
  const used = process.cpuUsage(cpu);
  await driver.close();
  return (LINES * 4) / ((used.user + used.system) / 1e6);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const plain: number[] = [];
const prepared: number[] = [];
await wordsPerCpuSecond(S); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  plain.push(await wordsPerCpuSecond(S));
  prepared.push(await wordsPerCpuSecond(withPrepare));
}
console.log(
  `words/CPU-s, String serde (no prepare): median ${median(plain).toFixed(0)} of ${plain.map((x) => x.toFixed(0)).join(', ')}`,
);
console.log(
  `words/CPU-s, with prepare (cached):     median ${median(prepared).toFixed(0)} of ${prepared.map((x) => x.toFixed(0)).join(', ')}`,
);
