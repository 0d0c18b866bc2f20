// What kstreams' exactly_once needs from a Kafka client, tried on @platformatic/kafka against the
// real broker (issue 18: a second backend only if its transactions, offset commits in a
// transaction and read_committed fetches work). Each check prints ok or FAILED with what it saw;
// the two read_committed checks also run a kafkajs reader on the same topic as a control.
//
//   KAFKA_BROKERS=127.0.0.1:9092 npx tsx bench/word-count/platformatic-eos-check.ts
//
// Topics and groups are named pfcheck-<run>-*, deleted at the end.
import { randomBytes } from 'node:crypto';
import {
  Consumer,
  FetchIsolationLevels,
  type Message,
  type MessageToProduce,
  ProduceAcks,
  Producer,
} from '@platformatic/kafka';
import { benchKafka, brokersFromEnv, connectAdmin, createTopics, deleteAll } from './cluster.ts';

const brokers = brokersFromEnv();
const run = `pfcheck-${Date.now().toString(36)}-${randomBytes(2).toString('hex')}`;
const admin = await connectAdmin(brokers);
const kafka = benchKafka(brokers, run);
const groups: string[] = [];
const closers: Array<() => Promise<unknown>> = [];
const results: Array<{ name: string; ok: boolean; detail: string }> = [];
let serial = 0;
const name = (what: string) => `${run}-${what}-${serial++}`;

/**
 * `asNew`: InitProducerId with producer id -1 and epoch -1 (a new producer, as Java's client sends).
 * This client sends 0 and 0 unless told, which the broker takes for a claim to be producer 0 of
 * the transactional.id: fine the first time an id is used, refused (fenced) once another producer
 * has had it, i.e. after any restart.
 */
function txnProducer(transactionalId: string, asNew = false): Producer {
  // Few retries: an idempotent producer otherwise retries (almost) forever.
  const p = new Producer({
    clientId: run,
    bootstrapBrokers: brokers,
    idempotent: true,
    transactionalId,
    retries: 3,
    retryDelay: 200,
    ...(asNew ? { producerId: -1n, producerEpoch: -1 } : {}),
  });
  closers.push(() => p.close());
  return p;
}

function consumer(opts: { isolationLevel?: number; maxBytesPerPartition?: number } = {}): Consumer {
  const groupId = name('group');
  groups.push(groupId);
  const c = new Consumer({
    clientId: run,
    bootstrapBrokers: brokers,
    groupId,
    autocommit: false,
    maxWaitTime: 200,
    retries: 3,
    retryDelay: 200,
    ...opts,
  });
  closers.push(() => c.close());
  return c;
}

const records = (topic: string, values: string[]): MessageToProduce[] =>
  values.map((v) => ({ topic, key: Buffer.from(v), value: Buffer.from(v), partition: 0 }));

async function topic(what: string): Promise<string> {
  const t = name(what);
  await createTopics(admin, [t], 1);
  return t;
}

/** Values read from the start of `topic` until `last` is seen (or 10 s passed). */
async function readUntil(
  topicName: string,
  last: string,
  opts: { isolationLevel?: number; maxBytesPerPartition?: number } = {},
): Promise<string[]> {
  const c = consumer(opts);
  const stream = await c.consume({ topics: [topicName], mode: 'earliest', autocommit: false });
  const seen: string[] = [];
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 10_000);
    stream.on('data', (m: Message) => {
      seen.push(m.value.toString());
      if (m.value.toString() === last) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  await stream.close();
  return seen;
}

/** The same with kafkajs (read_committed, its default), as a control. */
async function kafkajsReadUntil(topicName: string, last: string, maxBytesPerPartition?: number) {
  const groupId = name('kjs');
  groups.push(groupId);
  const c = kafka.consumer({
    groupId,
    maxWaitTimeInMs: 200,
    ...(maxBytesPerPartition ? { maxBytesPerPartition } : {}),
  });
  await c.connect();
  await c.subscribe({ topic: topicName, fromBeginning: true });
  const seen: string[] = [];
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 10_000);
    void c.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value?.toString() ?? '');
        if (message.value?.toString() === last) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await c.disconnect();
  return seen;
}

async function check(checkName: string, body: () => Promise<{ ok: boolean; detail: string }>) {
  try {
    const r = await Promise.race([
      body(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 60 s')), 60_000)),
    ]);
    results.push({ name: checkName, ...r });
  } catch (error) {
    const e = error as Error & { errors?: Error[] };
    const inner = e.errors?.map((x) => x.message).join(' | ');
    results.push({ name: checkName, ok: false, detail: `threw: ${e.message}${inner ? ` (${inner})` : ''}` });
  }
  const r = results.at(-1)!;
  console.log(`${r.ok ? 'ok    ' : 'FAILED'} ${r.name}: ${r.detail}`);
}

/** The error chain's messages and codes, flattened (MultipleErrors wraps the broker's error). */
function describe(error: unknown): string {
  const parts: string[] = [];
  const walk = (e: unknown) => {
    if (!e || typeof e !== 'object') return;
    const x = e as { message?: string; apiId?: string; errors?: unknown[]; cause?: unknown };
    parts.push(`${x.apiId ?? ''} ${x.message ?? ''}`.trim());
    for (const inner of x.errors ?? []) walk(inner);
    if (x.cause) walk(x.cause);
  };
  walk(error);
  return parts.join(' / ');
}

async function committedOffset(groupId: string, topicName: string): Promise<string | undefined> {
  const [t] = await admin.fetchOffsets({ groupId, topics: [topicName] });
  return t?.partitions.find((p) => p.partition === 0)?.offset;
}

const ALL = ProduceAcks.ALL;
const CONTROL_BATCH = 0x20;

/** One transaction of `p` writing `batches` (one send each) to partition 0 of `t`, then ended. */
async function transaction(p: Producer, t: string, batches: string[][], end: 'commit' | 'abort') {
  const tx = await p.beginTransaction();
  for (const values of batches) await tx.send({ messages: records(t, values), acks: ALL });
  await (end === 'commit' ? tx.commit() : tx.abort());
}

/** Writes `values` to `t` in one committed transaction of a producer of its own. */
const seedTopic = (t: string, values: string[]) =>
  transaction(txnProducer(name('seed')), t, [values], 'commit');

try {
  await check('transaction: begin, send, commit; read_committed sees the records', async () => {
    const t = await topic('commit');
    await seedTopic(t, ['a', 'b', 'c']);
    const seen = await readUntil(t, 'c');
    return { ok: seen.join() === 'a,b,c', detail: `read ${JSON.stringify(seen)}` };
  });

  await check('transaction abort: read_committed hides, read_uncommitted shows', async () => {
    const t = await topic('abort');
    const p = txnProducer(name('txn'));
    await transaction(p, t, [['x1', 'x2']], 'abort');
    await transaction(p, t, [['end']], 'commit');
    const rc = await readUntil(t, 'end');
    const ru = await readUntil(t, 'end', { isolationLevel: FetchIsolationLevels.READ_UNCOMMITTED });
    return {
      ok: rc.join() === 'end' && ru.join() === 'x1,x2,end',
      detail: `read_committed ${JSON.stringify(rc)}, read_uncommitted ${JSON.stringify(ru)}`,
    };
  });

  await check('read_committed: two aborted transactions of one producer, then a committed one', async () => {
    // What a task's producer writes after two rollbacks in a row: one producer id, two aborted ranges.
    const t = await topic('two-aborts');
    const p = txnProducer(name('txn'));
    await transaction(p, t, [['a1', 'a2']], 'abort');
    await transaction(p, t, [['b1', 'b2']], 'abort');
    await transaction(p, t, [['end']], 'commit');
    const seen = await readUntil(t, 'end');
    const control = await kafkajsReadUntil(t, 'end');
    return {
      ok: seen.join() === 'end',
      detail: `platformatic read ${JSON.stringify(seen)}; kafkajs (control) read ${JSON.stringify(control)}`,
    };
  });

  await check(
    'read_committed: an aborted transaction whose abort marker is not in the same fetch',
    async () => {
      // Three batches in the aborted transaction; a 1-byte partition limit makes the broker answer
      // one batch per fetch, so the abort marker comes two fetches later.
      const t = await topic('split-abort');
      const p = txnProducer(name('txn'));
      await transaction(p, t, [['x1'], ['x2'], ['x3']], 'abort');
      await transaction(p, t, [['end']], 'commit');
      const seen = await readUntil(t, 'end', { maxBytesPerPartition: 1 });
      const control = await kafkajsReadUntil(t, 'end', 1);
      return {
        ok: seen.join() === 'end',
        detail: `platformatic read ${JSON.stringify(seen)}; kafkajs (control) read ${JSON.stringify(control)}`,
      };
    },
  );

  await check('restart: a new producer with a used transactional.id (client defaults)', async () => {
    const t = await topic('restart');
    const id = name('txn');
    const first = txnProducer(id);
    await transaction(first, t, [['first']], 'commit');
    await first.close();
    const outcome = await transaction(txnProducer(id), t, [['restarted']], 'commit')
      .then(() => 'began and committed')
      .catch((e) => `refused: ${describe(e)}`);
    return { ok: outcome === 'began and committed', detail: outcome };
  });

  await check(
    'fencing (producer id -1, epoch -1 given): a second producer with the same transactional.id fences the first',
    async () => {
      const t = await topic('fence');
      const id = name('txn');
      const zombie = txnProducer(id, true);
      const ztx = await zombie.beginTransaction();
      await ztx.send({ messages: records(t, ['zombie']), acks: ALL });
      const successor = txnProducer(id, true);
      const stx = await successor.beginTransaction();
      await stx.send({ messages: records(t, ['successor']), acks: ALL });
      await stx.commit();
      let zombieCommit = 'committed (not fenced)';
      await ztx.commit().catch((e) => {
        zombieCommit = `refused: ${describe(e)}`;
      });
      // A fenced producer must stay dead: a new beginTransaction must not re-initialise it.
      let zombieAgain = 'refused';
      await zombie
        .beginTransaction()
        .then(async (tx) => {
          zombieAgain = 'began a new transaction (re-initialised the producer id, fencing the successor)';
          await tx.abort().catch(() => {});
        })
        .catch((e) => {
          zombieAgain = `refused: ${describe(e)}`;
        });
      const seen = await readUntil(t, 'successor');
      return {
        ok: zombieCommit.startsWith('refused') && seen.join() === 'successor',
        detail: `zombie's commit ${zombieCommit}; zombie's next beginTransaction ${zombieAgain}; read_committed ${JSON.stringify(seen)}`,
      };
    },
  );

  // Consumes an input topic in a group, then commits the consumed offsets in a transaction.
  const consumeInGroup = async (t: string, count: number) => {
    const c = consumer();
    const stream = await c.consume({ topics: [t], mode: 'earliest', autocommit: false });
    const got: Message[] = [];
    await new Promise<void>((resolve) => {
      stream.on('data', (m: Message) => {
        got.push(m);
        if (got.length === count) resolve();
      });
    });
    stream.pause();
    return { c, stream, got };
  };

  await check(
    'offsets in a transaction (TxnOffsetCommit with generation and member id): commit, then abort',
    async () => {
      const input = await topic('input');
      const output = await topic('output');
      await seedTopic(input, ['1', '2', '3', '4', '5']);
      const { c, got } = await consumeInGroup(input, 5);
      const p = txnProducer(name('txn'));
      const tx = await p.beginTransaction();
      await tx.send({
        messages: records(
          output,
          got.map((m) => `out-${m.value}`),
        ),
        acks: ALL,
      });
      await tx.addConsumer(c);
      await tx.addOffset(got[4]!);
      await tx.commit();
      const afterCommit = await committedOffset(c.groupId, input);
      const tx2 = await p.beginTransaction();
      await tx2.send({ messages: records(output, ['rolled-back']), acks: ALL });
      await tx2.addConsumer(c);
      await tx2.addOffset({ ...got[4]!, offset: 9n });
      await tx2.abort();
      const afterAbort = await committedOffset(c.groupId, input);
      const meta = got[4]!.metadata.consumer as { generationId: number; memberId: string };
      return {
        ok: afterCommit === '5' && afterAbort === '5',
        detail: `group offset after commit ${afterCommit}, after an aborted transaction that offered 10: ${afterAbort} (sent generation ${meta.generationId}, member ${meta.memberId.slice(0, 24)}...)`,
      };
    },
  );

  await check(
    'KIP-447: the broker refuses offsets sent with a stale generation or unknown member',
    async () => {
      const input = await topic('input');
      await seedTopic(input, ['1']);
      const { c, got } = await consumeInGroup(input, 1);
      const m = got[0]!;
      const meta = m.metadata.consumer as { generationId: number; memberId: string };
      const attempt = async (consumerMeta: object) => {
        const p = txnProducer(name('txn'));
        const tx = await p.beginTransaction();
        await tx.addConsumer(c);
        return tx
          .addOffset({ ...m, metadata: { consumer: { ...meta, ...consumerMeta } } })
          .then(async () => {
            await tx.abort().catch(() => {});
            return 'accepted';
          })
          .catch((e) => `refused: ${describe(e)}`);
      };
      const stale = await attempt({ generationId: meta.generationId + 1 });
      const unknown = await attempt({ memberId: 'no-such-member' });
      return {
        ok: stale.startsWith('refused') && unknown.startsWith('refused'),
        detail: `generation ${meta.generationId + 1}: ${stale}; unknown member: ${unknown}`,
      };
    },
  );

  await check(
    'manual assignment: a fetch of a chosen partition and offset, without joining a group',
    async () => {
      const t = await topic('manual');
      await seedTopic(t, ['m0', 'm1', 'm2']);
      const c = consumer();
      const metadata = await c.metadata({ topics: [t] });
      const info = metadata.topics.get(t)!;
      const response = await c.fetch({
        node: info.partitions[0]!.leader,
        isolationLevel: FetchIsolationLevels.READ_COMMITTED,
        maxWaitTime: 200,
        topics: [
          {
            topicId: info.id,
            partitions: [
              {
                partition: 0,
                fetchOffset: 1n,
                partitionMaxBytes: 1_048_576,
                currentLeaderEpoch: -1,
                lastFetchedEpoch: -1,
              },
            ],
          },
        ],
      });
      const values: string[] = [];
      for (const part of response.responses[0]?.partitions ?? []) {
        for (const batch of part.records ?? []) {
          if (batch.attributes & CONTROL_BATCH) continue; // the transaction's commit marker
          for (const r of batch.records) {
            if (batch.firstOffset + BigInt(r.offsetDelta) >= 1n) values.push(r.value?.toString() ?? '');
          }
        }
      }
      return {
        ok: values.join() === 'm1,m2' && c.memberId === null,
        detail: `read ${JSON.stringify(values)} from offset 1; group member id ${c.memberId}`,
      };
    },
  );
} finally {
  for (const close of closers.reverse()) await close().catch(() => {});
  await deleteAll(admin, [run], groups).catch((e: Error) => console.error(`cleaning up: ${e.message}`));
  await admin.disconnect();
}
const failed = results.filter((r) => !r.ok).length;
console.log(`\n${results.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
