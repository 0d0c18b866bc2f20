// Kafka Streams 3.9+ routes a punctuator's exception to the processing exception handler
// (KIP-1033): its context has no source record (topic '', offset -1) and the record is null;
// 'continue' skips that punctuation, 'fail' (the default) fails the task. A node downstream of a
// punctuator that throws is judged by the handler too, with the record it got.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  ProcessingError,
  type ProcessingExceptionHandler,
  type ProcessorContext,
  Record,
  Serdes,
  Topology,
} from '../../src/index.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

const S = Serdes.String();

/**
 * A wall-clock punctuator every 1,000 ms that writes `tick-<n>` to 'out' and throws at the ticks
 * in `failAt` (rejects instead when `async`); `downstreamFails` makes the node after it throw on
 * `tick-2` instead.
 */
function ticking(failAt: number[], { async = false, downstreamFails = false } = {}): Topology {
  return new Topology()
    .addSource('in', 'in', { keySerde: S, valueSerde: S })
    .addProcessor(
      'ticker',
      () => ({
        init(ctx: ProcessorContext<string, string>) {
          let n = 0;
          ctx.schedule(1_000, 'wall-clock-time', (now) => {
            n += 1;
            const tick = n;
            const run = () => {
              if (failAt.includes(tick)) throw new Error(`tick ${tick} failed`);
              ctx.forward(new Record('t', `tick-${tick}`, now));
            };
            if (!async) return run();
            return Promise.resolve().then(run);
          });
        },
        process() {},
      }),
      'in',
    )
    .addProcessor(
      'after',
      () => {
        let ctx!: ProcessorContext<string, string>;
        return {
          init(c: ProcessorContext<string, string>) {
            ctx = c;
          },
          process(r: Record<string, string>) {
            if (downstreamFails && r.value === 'tick-2') throw new Error('downstream refused tick-2');
            ctx.forward(r);
          },
        };
      },
      'ticker',
    )
    .addSink('out', 'out', { keySerde: S, valueSerde: S }, 'after');
}

function driverFor(topology: Topology, handler?: ProcessingExceptionHandler | 'logAndContinue') {
  return new TopologyTestDriver(topology, {
    logger: pino({ level: 'silent' }),
    initialWallClockTimeMs: 0,
    ...(handler === undefined ? {} : { processingExceptionHandler: handler }),
  });
}

async function ticks(driver: TopologyTestDriver, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await driver.advanceWallClockTime(1_000);
}

describe('punctuator errors and the processing exception handler', () => {
  it('logAndFail (the default) fails with a ProcessingError naming the punctuating node', async () => {
    const driver = driverFor(ticking([2]));
    await driver.advanceWallClockTime(1_000);
    const error = await driver.advanceWallClockTime(1_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProcessingError);
    expect((error as ProcessingError).nodeName).toBe('ticker');
    expect((error as Error).message).toContain('while punctuating: tick 2 failed');
    await driver.close();
  });

  for (const async of [false, true]) {
    it(`a handler sees the punctuator's error without a record; continue goes on (${async ? 'a rejected promise' : 'a throw'})`, async () => {
      const seen: unknown[] = [];
      const driver = driverFor(ticking([2, 3], { async }), (error, context) => {
        seen.push({
          error: error.message,
          node: context.processorNodeId,
          task: context.taskId,
          topic: context.topic,
          partition: context.partition,
          offset: context.offset,
          record: context.record,
        });
        return 'continue';
      });
      await ticks(driver, 5);
      expect(driver.createOutputTopic('out', S, S).readValuesToList()).toEqual([
        'tick-1',
        'tick-4',
        'tick-5',
      ]);
      const context = { node: 'ticker', task: '0_0', topic: '', partition: -1, offset: -1, record: null };
      expect(seen).toEqual([
        { error: 'tick 2 failed', ...context },
        { error: 'tick 3 failed', ...context },
      ]);
      await driver.close();
    });
  }

  it('a node downstream of a punctuator is judged by the handler with the record it got', async () => {
    const seen: Array<[string, unknown]> = [];
    const driver = driverFor(ticking([], { downstreamFails: true }), (_error, context) => {
      seen.push([context.processorNodeId, context.record?.value]);
      return 'continue';
    });
    await ticks(driver, 3);
    expect(driver.createOutputTopic('out', S, S).readValuesToList()).toEqual(['tick-1', 'tick-3']);
    expect(seen).toEqual([['after', 'tick-2']]);
    await driver.close();
  });

  it('logAndContinue skips the failed punctuation and counts it, with no dead-letter record', async () => {
    const driver = new TopologyTestDriver(ticking([1]), {
      logger: pino({ level: 'silent' }),
      initialWallClockTimeMs: 0,
      processingExceptionHandler: 'logAndContinue',
      errors: { deadLetterQueueTopic: 'dlq' },
    });
    await ticks(driver, 2);
    expect(driver.createOutputTopic('out', S, S).readValuesToList()).toEqual(['tick-2']);
    expect(driver.producedTopicNames()).toEqual(['out']);
    // As Kafka Streams' dropped-records sensor records a skipped punctuation.
    expect(driver.droppedRecordsTotal).toBe(1);
    await driver.close();
  });
});
