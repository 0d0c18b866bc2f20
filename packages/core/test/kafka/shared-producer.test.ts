// The at_least_once producer shared by a thread's tasks: since a task's send no longer holds the
// stream thread (task-runtime.ts' flush), several tasks' sends may be asked for at once; kafkajs
// numbers an idempotent producer's batches when it builds the request, so they must reach it one
// after another, in the order asked, and a failed one must not stop the next.
import type { Kafka } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import type { ProducerConfig } from '../../src/config/streams-config.ts';
import { SharedProducer } from '../../src/kafka/producers.ts';

const output = (value: string) => ({
  batches: [],
  records: [{ topic: 'out', partition: 0, key: null, value: Buffer.from(value), timestamp: 0 }],
});

/** A kafkajs producer whose sendBatch calls the test answers one by one. */
function pendingProducer() {
  const calls: Array<{ value: string; answer: (fail?: Error) => void }> = [];
  let running = 0;
  let maxRunning = 0;
  const producer = {
    connect: async () => {},
    disconnect: async () => {},
    sendBatch: ({ topicMessages }: { topicMessages: Array<{ messages: Array<{ value: Buffer }> }> }) => {
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      return new Promise((resolve, reject) => {
        const value = topicMessages[0]!.messages[0]!.value.toString();
        calls.push({
          value,
          answer: (fail) => {
            running -= 1;
            if (fail) reject(fail);
            else resolve([{ topicName: 'out', partition: 0, errorCode: 0, baseOffset: '0' }]);
          },
        });
      });
    },
  };
  const kafka = { producer: () => producer } as unknown as Kafka;
  return { kafka, calls, maxRunning: () => maxRunning };
}

const flushed = () => new Promise((r) => setImmediate(r));

describe('SharedProducer', () => {
  it("runs the tasks' sends one after another, in the order asked", async () => {
    const { kafka, calls, maxRunning } = pendingProducer();
    const producer = new SharedProducer(kafka, { idempotent: true, acks: -1 } as Required<ProducerConfig>);
    const first = producer.send(output('a'));
    const second = producer.send(output('b'));
    await flushed();
    expect(calls.map((c) => c.value)).toEqual(['a']);
    calls[0]!.answer();
    await first;
    await flushed();
    expect(calls.map((c) => c.value)).toEqual(['a', 'b']);
    calls[1]!.answer();
    await second;
    expect(maxRunning()).toBe(1);
  });

  it('goes on with the next send after a failed one, whose sender gets the failure', async () => {
    const { kafka, calls } = pendingProducer();
    const producer = new SharedProducer(kafka, { idempotent: true, acks: -1 } as Required<ProducerConfig>);
    const first = producer.send(output('a'));
    const second = producer.send(output('b'));
    await flushed();
    calls[0]!.answer(new Error('broker gone'));
    await expect(first).rejects.toThrow('broker gone');
    await flushed();
    expect(calls.map((c) => c.value)).toEqual(['a', 'b']);
    calls[1]!.answer();
    await expect(second).resolves.toMatchObject([{ topic: 'out', partition: 0 }]);
  });
});
