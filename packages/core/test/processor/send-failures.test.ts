// The production exception handler for a failed send, as Kafka Streams 4.4's recordSendError:
// which errors it is asked about, what 'continue', 'fail' and 'retry' do, and how a batch the
// broker refused as too large is split. No broker: the send is a function that fails as kafkajs does.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ProductionError, RecordSendError } from '../../src/errors.ts';
import { ENCODED_BATCH } from '../../src/kafka/produce-encoding.ts';
import { sendInChunks } from '../../src/kafka/producers.ts';
import { recordSendError, sendErrorKind } from '../../src/kafka/send-errors.ts';
import {
  defaultExceptionHandlers,
  defaultProductionHandler,
  type ProductionHandlerResponse,
} from '../../src/processor/exception-handlers.ts';
import { TaskExceptionHandling } from '../../src/processor/internals/exception-handling.ts';
import { OutputBatch } from '../../src/processor/internals/output-batch.ts';
import { outputBatchRecords } from '../../src/processor/internals/output-batch-records.ts';
import type { OutputRecord } from '../../src/processor/internals/records.ts';
import { RetryBackoff } from '../../src/processor/internals/retry-backoff.ts';

/** A kafkajs protocol error as kafkajs throws it (its retriable flag from the broker's code). */
const kafkaError = (type: string, retriable: boolean) =>
  Object.assign(new Error(`broker said ${type}`), { name: 'KafkaJSProtocolError', type, retriable });
const timedOut = () =>
  Object.assign(new Error('retries exhausted'), {
    name: 'KafkaJSNumberOfRetriesExceeded',
    retriable: false,
    cause: kafkaError('REQUEST_TIMED_OUT', true),
  });

const silent = pino({ level: 'silent' });
const record = (key: string, bytes = 10): OutputRecord => ({
  topic: 'out',
  key: Buffer.from(key),
  value: Buffer.alloc(bytes, 1),
  timestamp: 1_000,
});

function handling(answer: (e: Error) => ProductionHandlerResponse) {
  const seen: Array<{ error: Error; key: string | undefined; topic: string; offset: number }> = [];
  const dropped: string[] = [];
  const errors = new TaskExceptionHandling('0_1', { send: () => {} }, silent, {
    handlers: {
      ...defaultExceptionHandlers,
      production: (error, context) => {
        seen.push({
          error,
          key: (context.record.key as Buffer | null)?.toString(),
          topic: context.topic,
          offset: context.offset,
        });
        return answer(error);
      },
      names: { ...defaultExceptionHandlers.names, production: 'custom' },
    },
    onDropped: (kind) => dropped.push(kind),
  });
  return { errors, seen, dropped };
}

describe('which send errors reach the production exception handler (Java: recordSendError)', () => {
  it('asks about refused and timed-out records, not about denied writes, fencing or broker faults', () => {
    expect(sendErrorKind(kafkaError('MESSAGE_TOO_LARGE', false))).toBe('handled');
    expect(sendErrorKind(kafkaError('NOT_ENOUGH_REPLICAS', true))).toBe('handled');
    // Acks lost on the way: the producer's sequence is no longer the broker's; a new producer,
    // not the handler, gets past it (Java: TaskMigratedException).
    expect(sendErrorKind(kafkaError('OUT_OF_ORDER_SEQUENCE_NUMBER', false))).toBe('pass');
    expect(sendErrorKind(kafkaError('INVALID_PRODUCER_EPOCH', false))).toBe('pass');
    expect(sendErrorKind(timedOut())).toBe('handled');
    expect(sendErrorKind(kafkaError('TOPIC_AUTHORIZATION_FAILED', false))).toBe('pass');
    expect(sendErrorKind(kafkaError('PRODUCER_FENCED', false))).toBe('pass');
    expect(sendErrorKind(kafkaError('INVALID_TOPIC_EXCEPTION', false))).toBe('fatal');
    expect(sendErrorKind(kafkaError('UNKNOWN_SERVER_ERROR', false))).toBe('fatal');
    expect(sendErrorKind(new TypeError('a bug'))).toBe('pass');
  });

  it("marks what is retriable, and the default handler answers 'retry' for it, else 'fail'", () => {
    const tooLarge = recordSendError(kafkaError('MESSAGE_TOO_LARGE', false), 'out', 3);
    expect(tooLarge.retriable).toBe(false);
    expect(tooLarge.code).toBe('MESSAGE_TOO_LARGE');
    expect(tooLarge.message).toMatch(
      /topic 'out' partition 3 failed \(MESSAGE_TOO_LARGE\).*max\.message\.bytes/,
    );
    const timeout = recordSendError(timedOut(), 'out', undefined);
    expect(timeout.retriable).toBe(true);
    const context = {} as Parameters<typeof defaultProductionHandler>[1];
    expect(defaultProductionHandler(tooLarge, context)).toBe('fail');
    expect(defaultProductionHandler(timeout, context)).toBe('retry');
  });
});

describe('TaskExceptionHandling.sendFailed', () => {
  const tooLarge = () => recordSendError(kafkaError('MESSAGE_TOO_LARGE', false), 'out', 0);
  const timeout = () => recordSendError(timedOut(), 'out', 0);

  it("'continue' drops the record (counted) and the handler sees its bytes, without a source record", async () => {
    const { errors, seen, dropped } = handling(() => 'continue');
    await errors.sendFailed(tooLarge(), record('k1'), true);
    expect(seen).toEqual([{ error: expect.any(RecordSendError), key: 'k1', topic: '', offset: -1 }]);
    expect(dropped).toEqual(['production']);
    expect(errors.droppedRecordsTotal).toBe(1);
  });

  it("'fail' throws a ProductionError naming the handler's answer", async () => {
    const { errors } = handling(() => 'fail');
    await expect(errors.sendFailed(tooLarge(), record('k1'), true)).rejects.toThrow(
      /Task 0_1: .*MESSAGE_TOO_LARGE.*answered 'fail'/,
    );
  });

  it("'retry' for a non-retriable error is 'fail', as in Kafka Streams", async () => {
    const { errors } = handling(() => 'retry');
    const failed = errors.sendFailed(tooLarge(), record('k1'), true);
    await expect(failed).rejects.toBeInstanceOf(ProductionError);
    await expect(failed).rejects.toThrow(/not retriable, which counts as fail/);
  });

  it("'retry' for a retriable error throws the send's own error after a back-off (the task rolls back)", async () => {
    const { errors, dropped } = handling(() => 'retry');
    const started = Date.now();
    const original = await errors.sendFailed(timeout(), record('k1'), true).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(original).not.toBeInstanceOf(ProductionError);
    expect((original as Error).name).toBe('KafkaJSNumberOfRetriesExceeded');
    expect(dropped).toEqual([]);
  });

  it("'retry' for a record a sink cannot serialize is 'fail' (it would fail the same way again)", () => {
    const { errors, seen } = handling(() => 'retry');
    const produced = { topic: 'out', key: 'k', value: 1, timestamp: 0, headers: {} };
    expect(errors.production(new Error('cannot serialize'), 'sink', undefined, produced)).toBe(false);
    expect(seen).toHaveLength(1);
  });

  it('fails without asking for the errors Java never hands to the handler', async () => {
    const { errors, seen } = handling(() => 'continue');
    const unknown = recordSendError(kafkaError('UNKNOWN_SERVER_ERROR', false), 'out', 0);
    await expect(errors.sendFailed(unknown, record('k1'), false)).rejects.toThrow(
      /without asking the handler/,
    );
    expect(seen).toEqual([]);
  });

  it('a handler that answers something else fails the record', async () => {
    const { errors } = handling(() => 'skip' as unknown as ProductionHandlerResponse);
    await expect(errors.sendFailed(tooLarge(), record('k1'), true)).rejects.toBeInstanceOf(ProductionError);
  });
});

describe('sendInChunks with a failure handler', () => {
  it('splits a call the broker refused as too large and asks only about the record too large alone', async () => {
    const sent: string[] = [];
    const asked: string[] = [];
    const output = { batches: [], records: [record('a'), record('big', 5_000), record('b')] };
    await sendInChunks(
      output,
      async (topicMessages) => {
        const messages = topicMessages.flatMap((t) => t.messages);
        const big = messages.some((m) => (m.value as Buffer).length > 1_000);
        if (big) throw kafkaError('MESSAGE_TOO_LARGE', false);
        for (const m of messages) sent.push(String(m.key));
        return [];
      },
      (error, r) => {
        asked.push(`${r.key}:${error.code}`);
      },
    );
    expect(sent).toEqual(['a', 'b']);
    expect(asked).toEqual(['big:MESSAGE_TOO_LARGE']);
  });

  it('a refused call of several partitions: each batch again alone (the written one is a duplicate), then the refused one record by record', async () => {
    // A broker that refuses a partition's batch over 1,000 bytes, writes the call's other
    // partitions, and (idempotence) acknowledges a batch it already wrote without writing it again.
    const written = new Map<number, string[]>();
    const seen = new Set<unknown>();
    const sendOne = async (topicMessages: Array<{ messages: unknown[] }>) => {
      const messages = topicMessages.flatMap((t) => t.messages) as Array<Record<PropertyKey, unknown>>;
      let refused = false;
      for (const m of messages) {
        const batch = m[ENCODED_BATCH] as OutputBatch | undefined;
        if (batch === undefined) {
          if ((m.value as Buffer).length > 1_000) refused = true;
          else
            written.set(m.partition as number, [
              ...(written.get(m.partition as number) ?? []),
              String(m.key),
            ]);
          continue;
        }
        if (seen.has(batch)) continue;
        if (batch.bytes > 1_000) refused = true;
        else {
          seen.add(batch);
          written.set(
            batch.partition,
            outputBatchRecords(batch).map((r) => String(r.key)),
          );
        }
      }
      if (refused) throw kafkaError('MESSAGE_TOO_LARGE', false);
      return [];
    };
    const small = new OutputBatch('out', 0);
    for (const k of ['a', 'b']) small.append(Buffer.from(k), Buffer.alloc(10), 1);
    const mixed = new OutputBatch('out', 1);
    mixed.append(Buffer.from('c'), Buffer.alloc(10), 1);
    mixed.append(Buffer.from('big'), Buffer.alloc(5_000), 1);
    mixed.append(Buffer.from('d'), Buffer.alloc(10), 1);
    const asked: string[] = [];
    await sendInChunks({ batches: [small, mixed], records: [] }, sendOne as never, (error, r) => {
      asked.push(`${r.key}@${r.partition}:${error.code}`);
    });
    expect(Object.fromEntries(written)).toEqual({ 0: ['a', 'b'], 1: ['c', 'd'] });
    expect(asked).toEqual(['big@1:MESSAGE_TOO_LARGE']);
  });

  it('asks about each record of a timed-out call, and stops at the first that throws', async () => {
    const asked: string[] = [];
    const output = { batches: [], records: [record('a'), record('b'), record('c')] };
    const failing = sendInChunks(
      output,
      async () => {
        throw timedOut();
      },
      (error, r) => {
        asked.push(String(r.key));
        if (String(r.key) === 'b') throw new ProductionError('0_0', 'stop', { cause: error });
      },
    );
    await expect(failing).rejects.toBeInstanceOf(ProductionError);
    expect(asked).toEqual(['a', 'b']);
  });

  it('passes a denied write on (the runtime names the ACL), with the topics it was for', async () => {
    const denied = kafkaError('TOPIC_AUTHORIZATION_FAILED', false);
    const asked: unknown[] = [];
    const failing = sendInChunks(
      { batches: [], records: [record('a')] },
      async () => {
        throw denied;
      },
      (e) => {
        asked.push(e);
      },
    );
    await expect(failing).rejects.toBe(denied);
    expect(asked).toEqual([]);
    // The broker names no topic: the call's topics let the AuthorizationError name them.
    expect((denied as { deniedTopics?: string[] }).deniedTopics).toEqual(['out']);
  });
});

describe('outputBatchRecords', () => {
  it('reads back what the batch holds: keys, values, nulls, timestamps and headers', () => {
    const batch = new OutputBatch('t', 2);
    batch.append(Buffer.from('k'), Buffer.from('v'), 5_000_000_000_000);
    batch.append(null, Buffer.alloc(300, 7), 4_999_999_999_000, { h: 'x', b: Buffer.from([1, 2]) });
    batch.append(Buffer.from('gone'), null, 5_000_000_090_000);
    expect(outputBatchRecords(batch)).toEqual([
      {
        topic: 't',
        partition: 2,
        key: Buffer.from('k'),
        value: Buffer.from('v'),
        timestamp: 5_000_000_000_000,
      },
      {
        topic: 't',
        partition: 2,
        key: null,
        value: Buffer.alloc(300, 7),
        timestamp: 4_999_999_999_000,
        headers: { h: Buffer.from('x'), b: Buffer.from([1, 2]) },
      },
      { topic: 't', partition: 2, key: Buffer.from('gone'), value: null, timestamp: 5_000_000_090_000 },
    ]);
  });
});

describe('RetryBackoff', () => {
  it('doubles from 100 ms to 1 s, and starts over after a quiet spell', () => {
    let now = 0;
    const backoff = new RetryBackoff(() => now);
    const pauses = Array.from({ length: 6 }, () => backoff.next());
    expect(pauses).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    now += 60_000;
    expect(backoff.next()).toBe(100);
  });
});
