// Join benchmark: records of two topics (alternating left and right, stream time
// +1 ms per record, 1,000 keys: a left record's partner comes 1 ms later with the same key, except
// for one in ten, which stays unmatched and is null-joined by the left join once its window (100
// ms, grace 20 ms) has closed) through the TopologyTestDriver, joined (inner and left) against the
// same records through a plain mapValues per topic, and a stream-table join (the right topic as a
// table that the left records look up), in the same run: records per CPU-second,
// median of interleaved rounds, and the ratios. The driver commits after every record, so the
// stores' commits and changelog records cost per record here.
import { JoinWindows, Serdes, StreamsBuilder } from '../packages/core/src/index.ts';
import { TopologyTestDriver } from '../packages/core/src/testing/index.ts';

const RECORDS = 30_000;
const ROUNDS = 3;
const KEYS = 1_000;
const S = Serdes.String();

type Variant = 'mapValues' | 'join' | 'leftJoin' | 'tableJoin';

function topology(variant: Variant) {
  const builder = new StreamsBuilder();
  const left = builder.stream('left', { keySerde: S, valueSerde: S });
  const produced = { keySerde: S, valueSerde: S };
  if (variant === 'tableJoin') {
    const table = builder.table<string, string>('right', { keySerde: S, valueSerde: S });
    left.join(table, (l, r) => `${l}+${r}`).to('out', produced);
    return builder.build();
  }
  const right = builder.stream('right', { keySerde: S, valueSerde: S });
  if (variant === 'mapValues') {
    left.mapValues((v) => `${v}+`).to('out', produced);
    right.mapValues((v) => `+${v}`).to('out', produced);
  } else {
    const windows = JoinWindows.ofTimeDifferenceAndGrace(100, 20);
    const joined =
      variant === 'join'
        ? left.join(right, (l, r) => `${l}+${r}`, windows)
        : left.leftJoin(right, (l, r) => `${l}+${r}`, windows);
    joined.to('out', produced);
  }
  return builder.build();
}

async function run(variant: Variant): Promise<{ perCpuSecond: number; outputs: number }> {
  const driver = new TopologyTestDriver(topology(variant));
  const inputs = [driver.createInputTopic('left', S, S), driver.createInputTopic('right', S, S)];
  const output = driver.createOutputTopic('out', S, S);
  let outputs = 0;
  const before = process.cpuUsage();
  for (let i = 0; i < RECORDS; i++) {
    const j = Math.floor(i / 2);
    const unmatched = i % 2 === 1 && j % 10 === 0;
    await inputs[i % 2]!.pipeInput(`${unmatched ? 'other' : 'key'}-${j % KEYS}`, `v${i}`, i);
    if (i % 5000 === 0) outputs += output.readRecordsToList().length;
  }
  const used = process.cpuUsage(before);
  outputs += output.readRecordsToList().length;
  await driver.close();
  return { perCpuSecond: RECORDS / ((used.user + used.system) / 1e6), outputs };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const variants: Variant[] = ['mapValues', 'tableJoin', 'join', 'leftJoin'];
const rates: Record<Variant, number[]> = { mapValues: [], tableJoin: [], join: [], leftJoin: [] };
const outputs: Record<Variant, number> = { mapValues: 0, tableJoin: 0, join: 0, leftJoin: 0 };
for (const variant of variants) await run(variant); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of variants) {
    const result = await run(variant);
    rates[variant].push(result.perCpuSecond);
    outputs[variant] = result.outputs;
  }
}
const base = median(rates.mapValues);
console.log(
  `${fmt(RECORDS)} records over two topics through the test driver, ${fmt(KEYS)} keys, 100 ms windows + 20 ms grace, median of ${ROUNDS} interleaved rounds`,
);
console.table(
  Object.fromEntries(
    variants.map((v) => [
      v,
      {
        'records per CPU-second': fmt(median(rates[v])),
        'vs mapValues': (median(rates[v]) / base).toFixed(2),
        'output records': fmt(outputs[v]),
      },
    ]),
  ),
);
