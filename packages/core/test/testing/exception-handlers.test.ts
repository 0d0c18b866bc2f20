// The exception handlers and the dead-letter queue through the TopologyTestDriver, which runs the
// runtime's StreamTask: what is dropped, what goes to the DLQ (KIP-1034's headers), what fails.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { resolveStreamsConfig, type StreamsConfig } from '../../src/config/streams-config.ts';
import {
  ConfigError,
  DeserializationError,
  type ErrorHandlerContext,
  ProcessingError,
  type Processor,
  type ProcessorContext,
  type ProducedRecord,
  RecordTooLargeError,
  type Serde,
  SerializationError,
  StreamsBuilder,
} from '../../src/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { TopologyTestDriver, type TopologyTestDriverConfig } from '../../src/testing/index.ts';

const S = Serdes.String();
const I = Serdes.Int32();
const B = Serdes.Bytes();
const silent = pino({ level: 'silent' });
const DLQ = 'app-dlq';

/** Values: 'boom' throws in mapValues; the rest are upper-cased to 'out'. */
function upperCase() {
  const builder = new StreamsBuilder();
  builder
    .stream('in', { keySerde: S, valueSerde: S })
    .mapValues((v) => {
      if (v === 'boom') throw new TypeError(`cannot map ${v}`);
      return v.toUpperCase();
    })
    .to('out', { keySerde: S, valueSerde: S });
  return builder.build();
}

function driverFor(topology: ReturnType<typeof upperCase>, config: TopologyTestDriverConfig) {
  return new TopologyTestDriver(topology, { logger: silent, initialWallClockTimeMs: 0, ...config });
}

const text = (h: Buffer | string | undefined) => (h === undefined ? undefined : h.toString());

describe('processingExceptionHandler (KIP-1033)', () => {
  it('logAndFail (the default) fails the pipe with a ProcessingError naming the node', async () => {
    const driver = driverFor(upperCase(), {});
    const error = await driver
      .createInputTopic('in', S, S)
      .pipeInput('k', 'boom')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProcessingError);
    expect((error as ProcessingError).nodeName).toBe('KSTREAM-MAPVALUES-0000000001');
    expect((error as Error).message).toContain('cannot map boom');
    await driver.close();
  });

  it("logAndContinue drops the record, sends its source bytes to the DLQ with KIP-1034's headers, and goes on", async () => {
    const driver = driverFor(upperCase(), {
      processingExceptionHandler: 'logAndContinue',
      errors: { deadLetterQueueTopic: DLQ },
    });
    const input = driver.createInputTopic('in', S, S);
    await input.pipeInput('a', 'x', 10);
    await input.pipeInput('b', 'boom', 20, { trace: 'id-7' });
    await input.pipeInput('c', 'y', 30);
    expect(driver.createOutputTopic('out', S, S).readKeyValuesToList()).toEqual([
      { key: 'a', value: 'X' },
      { key: 'c', value: 'Y' },
    ]);
    const [dead, ...more] = driver.createOutputTopic(DLQ, S, S).readRecordsToList();
    expect(more).toEqual([]);
    expect(dead).toMatchObject({ key: 'b', value: 'boom', timestamp: 20 });
    const h = dead!.headers;
    expect(text(h.trace)).toBe('id-7');
    expect(text(h['__streams.errors.exception'])).toBe('TypeError');
    expect(text(h['__streams.errors.message'])).toBe('cannot map boom');
    expect(text(h['__streams.errors.stacktrace'])).toMatch(/^TypeError: cannot map boom\n\s+at /);
    expect(text(h['__streams.errors.topic'])).toBe('in');
    expect(text(h['__streams.errors.partition'])).toBe('0');
    expect(text(h['__streams.errors.offset'])).toBe('1');
    await driver.close();
  });

  it('a function sees the record, the node and the error; its answer decides per record', async () => {
    const seen: Array<{ node: string; offset: number; value: unknown; task: string; error: string }> = [];
    const driver = driverFor(upperCase(), {
      processingExceptionHandler: (error, context) => {
        seen.push({
          node: context.processorNodeId,
          offset: context.offset,
          value: context.record?.value,
          task: context.taskId,
          error: error.message,
        });
        return context.offset === 0 ? 'continue' : 'fail';
      },
    });
    const input = driver.createInputTopic('in', S, S);
    await input.pipeInput('a', 'boom');
    await expect(input.pipeInput('b', 'boom')).rejects.toThrow(ProcessingError);
    expect(seen).toEqual([
      {
        node: 'KSTREAM-MAPVALUES-0000000001',
        offset: 0,
        value: 'boom',
        task: '0_0',
        error: 'cannot map boom',
      },
      {
        node: 'KSTREAM-MAPVALUES-0000000001',
        offset: 1,
        value: 'boom',
        task: '0_0',
        error: 'cannot map boom',
      },
    ]);
    // Without a DLQ topic nothing else is written.
    expect(driver.producedTopicNames()).toEqual([]);
    await driver.close();
  });

  it('continue ends the record at the failing node only: a sibling branch still gets it (as ProcessorNode does)', async () => {
    const builder = new StreamsBuilder();
    const stream = builder.stream('in', { keySerde: S, valueSerde: S });
    stream
      .mapValues((): string => {
        throw new Error('left fails');
      })
      .to('left', { keySerde: S, valueSerde: S });
    stream.to('right', { keySerde: S, valueSerde: S });
    const driver = driverFor(builder.build(), { processingExceptionHandler: 'logAndContinue' });
    await driver.createInputTopic('in', S, S).pipeInput('k', 'v');
    expect(driver.createOutputTopic('right', S, S).readValuesToList()).toEqual(['v']);
    expect(driver.createOutputTopic('left', S, S).isEmpty()).toBe(true);
    await driver.close();
  });

  it('an async processor that rejects goes to the handler too', async () => {
    const builder = new StreamsBuilder();
    builder
      .stream('in', { keySerde: S, valueSerde: S })
      .process((): Processor<string, string, string, string> => {
        let ctx: ProcessorContext<string, string>;
        return {
          init: (c) => {
            ctx = c;
          },
          process: async (record) => {
            await new Promise((resolve) => setTimeout(resolve, 1));
            if (record.value === 'boom') throw new RangeError('async boom');
            ctx.forward(record);
          },
        };
      })
      .to('out', { keySerde: S, valueSerde: S });
    const driver = driverFor(builder.build(), {
      processingExceptionHandler: 'logAndContinue',
      errors: { deadLetterQueueTopic: DLQ },
    });
    const input = driver.createInputTopic('in', S, S);
    await input.pipeInput('a', 'boom');
    await input.pipeInput('b', 'ok');
    expect(driver.createOutputTopic('out', S, S).readValuesToList()).toEqual(['ok']);
    const dead = driver.createOutputTopic(DLQ, S, S).readRecordsToList();
    expect(dead.map((r) => [r.key, text(r.headers['__streams.errors.exception'])])).toEqual([
      ['a', 'RangeError'],
    ]);
    await driver.close();
  });

  it('a handler that throws or answers something else fails the record', async () => {
    for (const handler of [
      () => {
        throw new Error('handler bug');
      },
      () => 'skip' as 'continue',
    ]) {
      const driver = driverFor(upperCase(), { processingExceptionHandler: handler });
      await expect(driver.createInputTopic('in', S, S).pipeInput('k', 'boom')).rejects.toThrow(
        ProcessingError,
      );
      await driver.close();
    }
  });
});

/** A sink whose value serde refuses 'unserializable'. */
function pickySink() {
  const picky: Serde<string> = {
    serialize: (v: string) => {
      if (v === 'unserializable') throw new Error('refused by the serde');
      return Buffer.from(v);
    },
    deserialize: (b: Buffer) => b.toString(),
  };
  const builder = new StreamsBuilder();
  builder.stream('in', { keySerde: S, valueSerde: S }).to('out', { keySerde: S, valueSerde: picky });
  return builder.build();
}

describe('productionExceptionHandler', () => {
  it("'fail' (the default): a sink's serialization error fails the pipe", async () => {
    const driver = driverFor(pickySink(), {});
    await expect(driver.createInputTopic('in', S, S).pipeInput('k', 'unserializable')).rejects.toThrow(
      SerializationError,
    );
    await driver.close();
  });

  it("'continue' drops a record the sink cannot serialize and dead-letters its source record", async () => {
    const driver = driverFor(pickySink(), {
      productionExceptionHandler: 'continue',
      errors: { deadLetterQueueTopic: DLQ },
    });
    const input = driver.createInputTopic('in', S, S);
    await input.pipeInput('a', 'unserializable', 5);
    await input.pipeInput('b', 'fine', 6);
    expect(driver.createOutputTopic('out', S, S).readValuesToList()).toEqual(['fine']);
    const [dead] = driver.createOutputTopic(DLQ, S, S).readRecordsToList();
    expect(dead).toMatchObject({ key: 'a', value: 'unserializable', timestamp: 5 });
    expect(text(dead!.headers['__streams.errors.exception'])).toBe('SerializationError');
    expect(text(dead!.headers['__streams.errors.message'])).toContain('refused by the serde');
    expect(text(dead!.headers['__streams.errors.offset'])).toBe('0');
    await driver.close();
  });

  it('a record over maxRequestSize is a RecordTooLargeError for the handler, with the record as the sink got it', async () => {
    const calls: Array<{ error: Error; context: ErrorHandlerContext & { record: ProducedRecord } }> = [];
    const builder = new StreamsBuilder();
    builder.stream('in', { keySerde: S, valueSerde: B }).to('out', { keySerde: S, valueSerde: B });
    const driver = driverFor(builder.build(), {
      maxRequestSize: 1_000,
      productionExceptionHandler: (error, context) => {
        calls.push({ error, context });
        return 'continue';
      },
    });
    const input = driver.createInputTopic('in', S, B);
    await input.pipeInput('big', Buffer.alloc(1_000));
    await input.pipeInput('small', Buffer.alloc(800));
    expect(
      driver
        .createOutputTopic('out', S, B)
        .readKeyValuesToList()
        .map((r) => r.key),
    ).toEqual(['small']);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.error).toBeInstanceOf(RecordTooLargeError);
    expect(calls[0]!.error.message).toMatch(
      /1085 bytes serialized, more than producer.maxRequestSize \(1000\)/,
    );
    expect(calls[0]!.context).toMatchObject({
      processorNodeId: 'KSTREAM-SINK-0000000001',
      topic: 'in',
      offset: 0,
    });
    expect(calls[0]!.context.record).toMatchObject({ topic: 'out', key: 'big' });
    await driver.close();
  });
});

describe('deserializationExceptionHandler', () => {
  it('logAndContinue with errors.deadLetterQueueTopic dead-letters the bytes it could not read', async () => {
    const builder = new StreamsBuilder();
    builder.stream('in', { keySerde: S, valueSerde: I }).to('out', { keySerde: S, valueSerde: I });
    for (const config of [
      { deserializationExceptionHandler: 'logAndContinue', errors: { deadLetterQueueTopic: DLQ } },
      // The form from before the dead-letter queue setting: the same thing.
      { deserializationExceptionHandler: { deadLetterTopic: DLQ } },
    ] satisfies TopologyTestDriverConfig[]) {
      const driver = driverFor(builder.build(), config);
      await driver.createInputTopic('in', S, S).pipeInput('bad', 'abc');
      await driver.createInputTopic('in', S, I).pipeInput('good', 7);
      expect(driver.createOutputTopic('out', S, I).readKeyValuesToList()).toEqual([
        { key: 'good', value: 7 },
      ]);
      const [dead] = driver.createOutputTopic(DLQ, S, S).readRecordsToList();
      expect(dead).toMatchObject({ key: 'bad', value: 'abc' });
      expect(text(dead!.headers['__streams.errors.exception'])).toBe('DeserializationError');
      expect(text(dead!.headers['__streams.errors.message'])).toContain('in-0 offset 0');
      await driver.close();
    }
  });

  it('a function gets the DeserializationError and the source node', async () => {
    const builder = new StreamsBuilder();
    builder.stream('in', { keySerde: S, valueSerde: I }).to('out', { keySerde: S, valueSerde: I });
    const nodes: string[] = [];
    const driver = driverFor(builder.build(), {
      deserializationExceptionHandler: (error, context) => {
        expect(error).toBeInstanceOf(DeserializationError);
        nodes.push(context.processorNodeId);
        return 'fail';
      },
    });
    await expect(driver.createInputTopic('in', S, S).pipeInput('bad', 'abc')).rejects.toThrow(
      DeserializationError,
    );
    expect(nodes).toEqual(['KSTREAM-SOURCE-0000000000']);
    await driver.close();
  });
});

describe('exception handler settings', () => {
  const base: StreamsConfig = { applicationId: 'app', brokers: ['127.0.0.1:9092'], logger: 'silent' };
  const problems = (config: Record<string, unknown>): string => {
    try {
      resolveStreamsConfig({ ...base, ...config } as StreamsConfig);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('expected a ConfigError');
  };

  it('says what to change', () => {
    expect(problems({ productionExceptionHandler: 'logAndContinue' })).toContain(
      `"productionExceptionHandler" must be 'fail' (default), 'continue' or a function (error, context) => 'continue' | 'fail' | 'retry', got "logAndContinue" (use 'continue')`,
    );
    expect(problems({ processingExceptionHandler: 'continue' })).toContain(
      `"processingExceptionHandler" must be 'logAndFail' (default), 'logAndContinue' or a function`,
    );
    expect(problems({ errors: { deadLetterQueueTopic: 'has space' } })).toContain(
      `"errors.deadLetterQueueTopic" must be a topic name (letters, digits, ".", "_", "-"), got "has space"`,
    );
    expect(problems({ errors: { deadLetterQueueTopicName: 'x' } })).toContain(
      'unknown key "errors.deadLetterQueueTopicName"; the one key is deadLetterQueueTopic',
    );
    expect(
      problems({
        deserializationExceptionHandler: { deadLetterTopic: 'a' },
        errors: { deadLetterQueueTopic: 'b' },
      }),
    ).toContain('there is one dead-letter queue');
    expect(problems({ producer: { maxRequestSize: 0 } })).toContain(
      '"producer.maxRequestSize" must be a positive integer',
    );
    expect(
      () => new TopologyTestDriver(upperCase(), { processingExceptionHandler: 'ignore' as 'logAndFail' }),
    ).toThrow(ConfigError);
  });

  it('resolves the defaults', () => {
    const resolved = resolveStreamsConfig(base);
    expect(resolved.exceptionHandlers.names).toEqual({
      deserialization: 'logAndFail',
      processing: 'logAndFail',
      production: 'fail',
    });
    expect(resolved.exceptionHandlers.deadLetterQueueTopic).toBeUndefined();
    expect(resolved.producer.maxRequestSize).toBe(1_048_576);
  });
});
