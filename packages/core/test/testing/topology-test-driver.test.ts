import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError, DeserializationError, TopologyError } from '../../src/errors.ts';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import type { ProcessorContext } from '../../src/processor/processor.ts';
import type { Record } from '../../src/processor/record.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { Stores } from '../../src/state/index.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

const S = Serdes.String();
const I = Serdes.Int32();

function passThrough() {
  const builder = new StreamsBuilder();
  builder.stream('in', { keySerde: S, valueSerde: I }).to('out');
  return builder.build();
}

describe('TopologyTestDriver', () => {
  it('refuses topics the topology does not read, naming the ones it does', async () => {
    const driver = new TopologyTestDriver(passThrough());
    expect(() => driver.createInputTopic('nope', S, I)).toThrow(/does not read topic 'nope'; it reads in/);
    expect(() => driver.getKeyValueStore('missing')).toThrow(/No state store 'missing'/);
    await driver.close();
    await expect(driver.createInputTopic('in', S, I).pipeInput('k', 1)).rejects.toThrow(/closed/);
  });

  it('a value the source serde cannot read fails with DeserializationError naming topic, partition and offset', async () => {
    const driver = new TopologyTestDriver(passThrough());
    const good = driver.createInputTopic('in', S, I);
    const bad = driver.createInputTopic('in', S, S);
    await good.pipeInput('a', 1);
    const error = await bad.pipeInput('b', 'not four bytes').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeserializationError);
    expect(error).toMatchObject({ topic: 'in', partition: 0, offset: 1, part: 'value' });
    expect((error as Error).message).toContain('in-0 offset 1');
    await driver.close();
  });

  it("skips undeserializable records with a 'continue' handler", async () => {
    const skipped: number[] = [];
    const driver = new TopologyTestDriver(passThrough(), {
      logger: pino({ level: 'silent' }),
      deserializationExceptionHandler: (error) => {
        skipped.push(error.offset);
        return 'continue';
      },
    });
    await driver.createInputTopic('in', S, S).pipeInput('b', 'xyz');
    await driver.createInputTopic('in', S, I).pipeInput('c', 3);
    expect(skipped).toEqual([0]);
    expect(driver.createOutputTopic('out', S, I).readKeyValuesToList()).toEqual([{ key: 'c', value: 3 }]);
    await driver.close();
  });

  it('fails at construction with a ConfigError when a serde is missing and there is no default', () => {
    const builder = new StreamsBuilder();
    builder.stream<string, string>('in').to('out');
    expect(() => new TopologyTestDriver(builder.build())).toThrow(ConfigError);
    expect(() => new TopologyTestDriver(builder.build())).toThrow(
      /No key serde for source KSTREAM-SOURCE-0000000000/,
    );
  });

  it('keeps order for pipes that are not awaited one by one, and awaits async processors', async () => {
    class Slow {
      private ctx!: ProcessorContext<string, number>;
      init(ctx: ProcessorContext<string, number>) {
        this.ctx = ctx;
      }
      async process(record: Record<string, number>) {
        await new Promise((resolve) => setTimeout(resolve, 10 - record.value));
        this.ctx.forward(record);
      }
    }
    const builder = new StreamsBuilder();
    builder
      .stream('in', { keySerde: S, valueSerde: I })
      .process(() => new Slow())
      .to('out', { keySerde: S, valueSerde: I });
    const driver = new TopologyTestDriver(builder.build());
    const input = driver.createInputTopic('in', S, I);
    await Promise.all([1, 2, 3, 4].map((n) => input.pipeInput('k', n)));
    expect(driver.createOutputTopic('out', S, I).readValuesToList()).toEqual([1, 2, 3, 4]);
    await driver.close();
  });

  it('default timestamps come from the input topic clock, advanced by autoAdvanceMs', async () => {
    const driver = new TopologyTestDriver(passThrough(), { initialWallClockTimeMs: 500 });
    const input = driver.createInputTopic('in', S, I, { autoAdvanceMs: 10 });
    await input.pipeKeyValueList([
      { key: 'a', value: 1 },
      { key: 'b', value: 2 },
    ]);
    await input.pipeInput('c', 3, 42);
    expect(
      driver
        .createOutputTopic('out', S, I)
        .readRecordsToList()
        .map((r) => r.timestamp),
    ).toEqual([500, 510, 42]);
    await driver.close();
  });
});

describe('bad topologies from the DSL', () => {
  it('a topic read by two streams', () => {
    const builder = new StreamsBuilder();
    builder.stream('a');
    expect(() => builder.stream('a')).toThrow(TopologyError);
    expect(() => builder.stream(['b', 'a'])).toThrow(
      /Topic 'a' is already read by source KSTREAM-SOURCE-0000000000/,
    );
  });

  it('two operations given one name', () => {
    const builder = new StreamsBuilder();
    const s = builder.stream('a').filter(() => true, { name: 'keep' });
    expect(() => s.mapValues((v) => v, { name: 'keep' })).toThrow(/Node name keep is used twice/);
  });

  it('a store that no processor uses, or a processor naming a store that was never added', () => {
    const unused = new StreamsBuilder();
    unused.addStateStore(Stores.keyValueStoreBuilder('orphan', S, I));
    unused.stream('a').to('b');
    expect(() => unused.build()).toThrow(/State store 'orphan' is not connected to any processor/);

    const missing = new StreamsBuilder();
    missing.stream('a').process(() => ({ process() {} }), 'ghost');
    expect(() => missing.build()).toThrow(TopologyError);
    expect(() => missing.build()).toThrow(/unknown state store 'ghost'/);
  });

  it('merging streams of two builders', () => {
    const a = new StreamsBuilder().stream('a');
    const b = new StreamsBuilder().stream('b');
    expect(() => a.merge(b)).toThrow(/different StreamsBuilders/);
  });

  it('two groupings that would share one repartition topic', () => {
    const builder = new StreamsBuilder();
    const s = builder.stream('a', { keySerde: S, valueSerde: S });
    s.groupBy((_k, v) => v, { name: 'g' }).count();
    expect(() => s.groupBy((_k, v) => v, { name: 'g' }).count()).toThrow(
      /Topic 'g-repartition' is already read/,
    );
  });
});
