// A task that rolls back in place (a processor's exception, a commit the group refused) processes
// the records since its last commit again, with the same processors. Every clock must go back to
// the commit with the stores. The time-based operators' observed stream time: kept at the
// rolled-back records' time, the records processed again were late to windows still open at the
// commit and were dropped (seen as missing final results in the suppression SIGKILL test). The
// stream-time punctuation schedules: else a punctuator that fired among the rolled-back records
// (its output aborted) does not fire again. Each case runs the same records with and without a
// rollback and expects the same output after the commit.
import { InMemoryKeyValueStore } from '@kstreams/state-store';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  BufferConfig,
  JoinWindows,
  type KGroupedStream,
  type KTable,
  SessionWindows,
  SlidingWindows,
  StreamsBuilder,
  Suppressed,
  TimeWindows,
} from '../../src/kstream/index.ts';
import type { OutputRecord } from '../../src/processor/internals/records.ts';
import { StreamTask } from '../../src/processor/internals/stream-task.ts';
import type { ProcessorContext } from '../../src/processor/processor.ts';
import { Record } from '../../src/processor/record.ts';
import { Topology } from '../../src/processor/topology.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import type { Windowed } from '../../src/windowed.ts';

const S = Serdes.String();
const L = Serdes.Long();
const SECOND = 1000;

interface In {
  topic: string;
  key: string;
  timestamp: number;
}

const windowKey = (w: Windowed<string>) => `${w.key}@${w.window.start}-${w.window.end}`;

type Counted = KTable<Windowed<string>, number>;

/** in -> groupByKey -> `count` (a windowed count) -> out, keyed "key@start-end". */
function windowedCount(count: (grouped: KGroupedStream<string, string>) => Counted) {
  return (): Topology => {
    const b = new StreamsBuilder();
    count(b.stream('in', { keySerde: S, valueSerde: S }).groupByKey())
      .toStream()
      .selectKey(windowKey)
      .to('out', { keySerde: S, valueSerde: L });
    return b.build();
  };
}

/**
 * Processor API: a stream-time punctuator scheduled in init(), and one more scheduled when a
 * record with key 'b' is processed; each forwards a tick.
 */
class Ticker {
  private ctx!: ProcessorContext<string, string>;
  init(ctx: ProcessorContext<string, string>): void {
    this.ctx = ctx;
    this.tickEvery('tick');
  }
  process(record: Record<string, string>): void {
    if (record.key === 'b') this.tickEvery('tick-b');
  }
  private tickEvery(name: string): void {
    this.ctx.schedule(10 * SECOND, 'stream-time', (at) => {
      this.ctx.forward(new Record(name, String(at), at));
    });
  }
}

const tumbling = TimeWindows.ofSizeAndGrace(10 * SECOND, SECOND);

const topologies = {
  'tumbling count': windowedCount((g) => g.windowedBy(tumbling).count()),
  'tumbling count, suppressed until the window closes': windowedCount((g) =>
    g.windowedBy(tumbling).count().suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded())),
  ),
  'sliding count': windowedCount((g) =>
    g.windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(5 * SECOND, SECOND)).count(),
  ),
  'session count': windowedCount((g) =>
    g.windowedBy(SessionWindows.ofInactivityGapAndGrace(5 * SECOND, SECOND)).count(),
  ),
  'stream-stream left join': (): Topology => {
    const b = new StreamsBuilder();
    const right = b.stream('right', { keySerde: S, valueSerde: S });
    b.stream('in', { keySerde: S, valueSerde: S })
      .leftJoin(
        right,
        (l: string, r: string | null) => `${l}+${r}`,
        JoinWindows.ofTimeDifferenceAndGrace(5 * SECOND, SECOND),
      )
      .to('out', { keySerde: S, valueSerde: S });
    return b.build();
  },
  'stream-time punctuators (Processor API)': (): Topology =>
    new Topology()
      .addSource('src', 'in', { keySerde: S, valueSerde: S })
      .addProcessor('ticker', () => new Ticker(), 'src')
      .addSink('out', 'out', { keySerde: S, valueSerde: S }, 'ticker'),
};

/**
 * 'a' at 1 s is committed; then records at 2 s (same windows) and 30 s (stream time far past
 * them) are processed, rolled back if `rollBack`, and processed (again); then 40 s closes all.
 */
const committed: In[] = [
  { topic: 'in', key: 'a', timestamp: 1 * SECOND },
  { topic: 'right', key: 'a', timestamp: 1 * SECOND },
];
const afterCommit: In[] = [
  { topic: 'in', key: 'a', timestamp: 2 * SECOND },
  // Unmatched in the left join: its [b+null] waits until its window closes.
  { topic: 'in', key: 'b', timestamp: 2 * SECOND },
  { topic: 'right', key: 'a', timestamp: 2_500 },
  { topic: 'in', key: 'a', timestamp: 30 * SECOND },
];
const closing: In = { topic: 'in', key: 'z', timestamp: 40 * SECOND };

async function run(name: keyof typeof topologies, rollBack: boolean): Promise<OutputRecord[]> {
  let sent: OutputRecord[] = [];
  const task = new StreamTask({
    id: { subtopology: 0, partition: 0 },
    applicationId: 'app',
    topology: topologies[name](),
    collector: { send: (r) => sent.push(r) },
    storeFactory: (store) => new InMemoryKeyValueStore(store),
    logger: pino({ level: 'silent' }),
  });
  const offsets = new Map<string, number>();
  const reads = new Set(task.inputPartitions.map((p) => p.topic));
  const process = async (records: In[]) => {
    for (const { topic, key, timestamp } of records) {
      if (!reads.has(topic)) continue;
      const offset = offsets.get(topic) ?? 0;
      offsets.set(topic, offset + 1);
      await task.process({
        topic,
        partition: 0,
        offset,
        key: Buffer.from(key),
        value: Buffer.from(key),
        timestamp,
      });
    }
  };
  await task.initializeStores();
  await task.initializeTopology();
  await process(committed);
  task.changelogRecords();
  await task.postCommit([]);
  const committedOffsets = new Map(offsets);
  sent = [];
  if (rollBack) {
    await process(afterCommit);
    task.rollback();
    offsets.clear();
    for (const [topic, offset] of committedOffsets) offsets.set(topic, offset);
    // What the rolled-back records sent was aborted with the transaction.
    sent = [];
  }
  await process([...afterCommit, closing]);
  await task.close();
  return sent;
}

const show = (records: OutputRecord[]) =>
  records.map((r) => `${r.key?.toString('latin1')} ${r.value?.toString('hex')} @${r.timestamp}`);

describe('an in-place rollback takes stream time and punctuation back to the last commit', () => {
  it.each(Object.keys(topologies) as (keyof typeof topologies)[])(
    '%s: the records processed again give what they gave without the rollback',
    async (name) => {
      const plain = await run(name, false);
      // The record at 2 s is in the first windows: they must show it (a count of 2, a join).
      expect(plain.length).toBeGreaterThan(0);
      expect(show(await run(name, true))).toEqual(show(plain));
    },
  );
});
