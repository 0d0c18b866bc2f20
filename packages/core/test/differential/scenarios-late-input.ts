// Differential scenarios of multi-input tasks whose second input arrives late (issue 34): one
// input's records are piped after the other's although their timestamps are earlier, as when a
// table's partition is fetched seconds after the stream's. A TopologyTestDriver processes each
// piped record at once (it has no fetch to wait for), in Kafka Streams as here, so the results
// must be the same record for record: late table rows miss the earlier orders, and a stream-stream
// join drops the other side's records that come after their windows closed.
import type { Scenario, ScenarioInput } from '../../../../scripts/differential/kafka-streams.ts';

const KEYS = ['k1', 'k2', 'k3', 'k4'];

/**
 * `left` records at timestamps 100.. first, then `right` records at 0.. (earlier in event time,
 * later in wall-clock time; every key once, then two updated), then more `left` records, and a
 * last `right` record inside the stream's time.
 */
function lateRightInput(): ScenarioInput[] {
  const inputs: ScenarioInput[] = [];
  const left = (i: number) => {
    inputs.push({ topic: 'left', key: KEYS[i % KEYS.length]!, value: `o${i}`, timestamp: 100 + i });
  };
  for (let i = 0; i < 6; i++) left(i);
  for (const [i, key] of KEYS.entries())
    inputs.push({ topic: 'right', key, value: `${key}v1`, timestamp: i });
  inputs.push({ topic: 'right', key: 'k2', value: 'k2v2', timestamp: 10 });
  inputs.push({ topic: 'right', key: 'k9', value: 'k9v1', timestamp: 11 });
  for (let i = 6; i < 12; i++) left(i);
  inputs.push({ topic: 'right', key: 'k1', value: 'k1v2', timestamp: 108 });
  for (let i = 12; i < 16; i++) left(i);
  return inputs;
}

const out = [{ topic: 'out', value: 'string' }] as Scenario['outputs'];

export const lateInputScenarios: Scenario[] = [
  {
    name: 'stream-table left join, the table piped after the stream but earlier in event time',
    topology: 'st-left',
    inputs: lateRightInput(),
    outputs: out,
  },
  {
    name: 'table-table outer join, one table piped after the other but earlier in event time',
    topology: 'tt-outer',
    inputs: lateRightInput(),
    outputs: out,
  },
  {
    name: 'stream-stream left join (grace 5), the right side piped late and earlier in event time',
    topology: 'ss-left-grace',
    inputs: lateRightInput(),
    outputs: out,
  },
];
