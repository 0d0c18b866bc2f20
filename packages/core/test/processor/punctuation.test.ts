import { describe, expect, it } from 'vitest';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import { TaskPunctuation } from '../../src/processor/internals/punctuation.ts';
import type { Cancellable, ProcessorContext } from '../../src/processor/processor.ts';
import { Record } from '../../src/processor/record.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { type KeyValueStore, Stores } from '../../src/state/index.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

const S = Serdes.String();
const L = Serdes.Long();

/** Sums values per key in a store and emits all sums on each punctuation. */
class PeriodicEmitter {
  private ctx!: ProcessorContext<string, number>;
  private sums!: KeyValueStore<string, number>;
  readonly fired: number[] = [];
  private handle!: Cancellable;
  constructor(
    private readonly type: 'stream-time' | 'wall-clock-time',
    private readonly cancelAfter = Number.POSITIVE_INFINITY,
  ) {}
  init(ctx: ProcessorContext<string, number>) {
    this.ctx = ctx;
    this.sums = ctx.getStateStore('sums');
    this.handle = ctx.schedule(10, this.type, async (timestamp) => {
      this.fired.push(timestamp);
      for await (const { key, value } of this.sums.all()) this.ctx.forward(new Record(key, value, timestamp));
      if (this.fired.length >= this.cancelAfter) this.handle.cancel();
    });
  }
  process(record: Record<string, number>) {
    this.sums.put(record.key, (this.sums.get(record.key) ?? 0) + record.value);
  }
}

function topology(emitter: () => PeriodicEmitter) {
  const builder = new StreamsBuilder();
  builder.addStateStore(Stores.keyValueStoreBuilder('sums', S, L));
  builder
    .stream('in', { keySerde: S, valueSerde: L })
    .process(emitter, 'sums')
    .to('out', { keySerde: S, valueSerde: L });
  return builder.build();
}

describe('punctuation', () => {
  it('stream time: fires at the first record, then when record time reaches the next 10 ms step', async () => {
    const instances: PeriodicEmitter[] = [];
    const driver = new TopologyTestDriver(
      topology(() => {
        const p = new PeriodicEmitter('stream-time');
        instances.push(p);
        return p;
      }),
      { initialWallClockTimeMs: 0 },
    );
    const input = driver.createInputTopic('in', S, L);
    const out = driver.createOutputTopic('out', S, L);
    await input.pipeInput('a', 1, 3); // stream time 3: first punctuation at 3
    expect(out.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([['a', 1, 3]]);
    await input.pipeInput('a', 1, 9); // before 10: nothing
    await input.pipeInput('b', 5, 2); // out of order: stream time stays 9
    expect(out.isEmpty()).toBe(true);
    await input.pipeInput('b', 1, 12); // reaches 10: fires with stream time 12
    expect(out.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([
      ['a', 2, 12],
      ['b', 6, 12],
    ]);
    await input.pipeInput('b', 1, 45); // skips missed steps: one punctuation, next at 50
    await input.pipeInput('b', 1, 49);
    expect(instances[0]!.fired).toEqual([3, 12, 45]);
    // Wall-clock time does not drive stream-time punctuators.
    await driver.advanceWallClockTime(1000);
    expect(instances[0]!.fired).toEqual([3, 12, 45]);
    await driver.close();
  });

  it('wall-clock time: fires when the driver clock advances past each interval, until cancelled', async () => {
    const instances: PeriodicEmitter[] = [];
    const driver = new TopologyTestDriver(
      topology(() => {
        const p = new PeriodicEmitter('wall-clock-time', 2);
        instances.push(p);
        return p;
      }),
      { initialWallClockTimeMs: 1000 },
    );
    const input = driver.createInputTopic('in', S, L);
    const out = driver.createOutputTopic('out', S, L);
    await input.pipeInput('a', 4, 999_999); // stream time does not drive wall-clock punctuators
    expect(out.isEmpty()).toBe(true);
    await driver.advanceWallClockTime(9);
    expect(instances[0]!.fired).toEqual([]);
    await driver.advanceWallClockTime(1); // 1010
    expect(out.readKeyValuesToList()).toEqual([{ key: 'a', value: 4 }]);
    await driver.advanceWallClockTime(25); // 1035: one punctuation, no burst
    await driver.advanceWallClockTime(100); // cancelled after two
    expect(instances[0]!.fired).toEqual([1010, 1035]);
    expect(out.readRecordsToList().map((r) => r.timestamp)).toEqual([1035]);
    await driver.close();
  });
});

describe('TaskPunctuation across a rollback', () => {
  it('restores stream-time schedules to the commit, and drops schedules made after it', () => {
    const punctuation = new TaskPunctuation<{ name: string }>();
    const owner = { name: 'p' };
    const now = () => 1_000;
    const noop = () => {};
    const hooks = { onDue: noop, wrap: (_: unknown, e: unknown) => e as Error, track: noop };
    const stream = punctuation.schedule(owner, 10, 'stream-time', noop, now);
    const wall = punctuation.schedule(owner, 10, 'wall-clock-time', noop, now);
    punctuation.committed();
    punctuation.fire(punctuation.streamTime, 25, hooks);
    punctuation.fire(punctuation.wallClock, 1_015, hooks);
    const later = punctuation.schedule(owner, 10, 'stream-time', noop, now);
    const laterWall = punctuation.schedule(owner, 10, 'wall-clock-time', noop, now);
    punctuation.rolledBack();
    // The stream-time schedule fires again at 25 (its output then was aborted); the wall clock
    // does not go back; the schedules made after the commit are made again when processing repeats.
    expect(punctuation.streamTime.due(25)).toEqual([stream]);
    expect(punctuation.wallClock.due(1_019)).toEqual([]);
    expect(punctuation.wallClock.due(1_020)).toEqual([wall]);
    expect([later, laterWall].map((s) => (s as unknown as { cancelled: boolean }).cancelled)).toEqual([
      true,
      true,
    ]);
  });
});
