// Suppression benchmark: a windowed count (1 s tumbling windows, 100 ms grace, stream time +1 ms
// per record) through the TopologyTestDriver, with and without
// suppress(untilWindowCloses(unbounded())) after it, in the same run: records per CPU-second and
// their ratio. Two key counts: 100 keys (10 updates per key and window, most of them absorbed by
// the buffer) and 1,000 keys (one update per window: every update is buffered, then evicted).
// The driver commits after every record, so the buffer's commit and changelog run per record too.
import { BufferConfig, Serdes, StreamsBuilder, Suppressed, TimeWindows } from '../packages/core/src/index.ts';
import { TopologyTestDriver } from '../packages/core/src/testing/index.ts';

const RECORDS = 50_000;
const ROUNDS = 3;
const S = Serdes.String();

function topology(suppress: boolean) {
  const builder = new StreamsBuilder();
  const counts = builder
    .stream('in', { keySerde: S, valueSerde: S })
    .groupByKey()
    .windowedBy(TimeWindows.ofSizeAndGrace(1000, 100))
    .count({ keySerde: S });
  (suppress ? counts.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded())) : counts)
    .toStream()
    .selectKey((w) => w.key)
    .to('out', { keySerde: S, valueSerde: Serdes.Long() });
  return builder.build();
}

async function recordsPerCpuSecond(suppress: boolean, keys: number): Promise<number> {
  const driver = new TopologyTestDriver(topology(suppress));
  const input = driver.createInputTopic('in', S, S);
  const output = driver.createOutputTopic('out', S, Serdes.Long());
  const before = process.cpuUsage();
  for (let i = 0; i < RECORDS; i++) {
    await input.pipeInput(`user-${i % keys}`, 'view', i);
    if (i % 5000 === 0) output.readRecordsToList();
  }
  const used = process.cpuUsage(before);
  await driver.close();
  return RECORDS / ((used.user + used.system) / 1e6);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const rows: Record<string, Record<string, string>> = {};
for (const keys of [100, 1000]) {
  const plain: number[] = [];
  const suppressed: number[] = [];
  await recordsPerCpuSecond(false, keys); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    plain.push(await recordsPerCpuSecond(false, keys));
    suppressed.push(await recordsPerCpuSecond(true, keys));
  }
  rows[`${keys} keys`] = {
    'windowed count': fmt(median(plain)),
    'with suppress': fmt(median(suppressed)),
    ratio: (median(suppressed) / median(plain)).toFixed(2),
  };
}
console.log(
  `${fmt(RECORDS)} records through the test driver, 1 s windows, median of ${ROUNDS} interleaved rounds, records per CPU-second`,
);
console.table(rows);
