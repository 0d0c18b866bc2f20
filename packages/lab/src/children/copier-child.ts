// The copier family's read-process-write application: consumes the input read_committed, forwards
// each record to the output, and commits its consumer offsets itself after the output, in slices.
// manualCommit: an idempotent producer, then the offset commit. transactional: the output in a
// transaction, committed, and only then the offsets (no sendOffsets, so not atomic with it).
// A kill point makes it stop at one moment of one slice and wait there for the lab's SIGKILL.
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import '@kstreams/core';
import { proxiedSocketFactory } from '../../../../scripts/test/fault-proxy.ts';
import { childOptions, report } from '../child.ts';

export type KillPoint = 'none' | 'midBatch' | 'afterOutput' | 'beforeCommit';

export interface CopierOptions {
  brokers: string[];
  proxyPort: number;
  mode: 'manualCommit' | 'transactional';
  input: string;
  output: string;
  groupId: string;
  transactionalId: string;
  sliceSize: number;
  sessionTimeoutMs: number;
  killPoint: KillPoint;
  /** The slice (counted from 1 in this process) at which the kill point applies. */
  killAtSlice: number;
}

const o = childOptions<CopierOptions>();
const kafka = new Kafka({
  clientId: 'lab-copier',
  brokers: o.brokers,
  logLevel: logLevel.NOTHING,
  socketFactory: proxiedSocketFactory(o.proxyPort),
});
const transactional = o.mode === 'transactional';
const producer = kafka.producer({
  idempotent: true,
  maxInFlightRequests: transactional ? 1 : 5,
  createPartitioner: Partitioners.DefaultPartitioner,
  ...(transactional ? { transactionalId: o.transactionalId } : {}),
});
const consumer = kafka.consumer({
  groupId: o.groupId,
  readUncommitted: false,
  sessionTimeout: o.sessionTimeoutMs,
  heartbeatInterval: 500,
  maxWaitTimeInMs: 100,
});
const hang = () => new Promise<never>(() => {});
// Tells the lab a commit is next and gives it time to arm the proxy against that commit's answer.
const beforeCommit = async () => {
  report('beforeCommit', { slice: slices });
  await new Promise((r) => setTimeout(r, 300));
};
let slices = 0;
let sent = 0;

await producer.connect();
await consumer.connect();
await consumer.subscribe({ topic: o.input, fromBeginning: true });
await consumer.run({
  autoCommit: false,
  eachBatchAutoResolve: false,
  eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
    for (let i = 0; i < batch.messages.length; i += o.sliceSize) {
      if (!isRunning() || isStale()) return;
      const slice = batch.messages.slice(i, i + o.sliceSize);
      const messages = slice.map((m) => ({ key: m.key, value: m.value }));
      const at = ++slices === o.killAtSlice ? o.killPoint : 'none';
      const half = Math.ceil(messages.length / 2);
      if (transactional) {
        const tx = await producer.transaction();
        if (at === 'midBatch') {
          await tx.send({ topic: o.output, messages: messages.slice(0, half) });
          report('hang', { at, sent: sent + half });
          await hang();
        }
        await tx.send({ topic: o.output, messages });
        if (at === 'beforeCommit') await beforeCommit();
        await tx.commit();
      } else {
        if (at === 'midBatch') {
          await producer.send({ topic: o.output, acks: -1, messages: messages.slice(0, half) });
          report('hang', { at, sent: sent + half });
          await hang();
        }
        await producer.send({ topic: o.output, acks: -1, messages });
      }
      sent += messages.length;
      if (at === 'afterOutput') {
        report('hang', { at, sent });
        await hang();
      }
      const next = String(Number(slice.at(-1)!.offset) + 1);
      if (at === 'beforeCommit' && !transactional) await beforeCommit();
      await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
      resolveOffset(slice.at(-1)!.offset);
      await heartbeat();
      report('progress', { slices, sent });
    }
  },
});
report('running');
