// An Avro aggregation under exactly_once, SIGKILLed mid-run and restarted, against the real
// broker and a real registry: every customer's totals are 1..n orders, once each, and the sums
// exact. The app is a real child process (fixtures/avro-count-app.ts, bundled).
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningRegistry, startRegistry } from '../../../scripts/registry/registry.ts';
import { bundleEntry } from '../../../scripts/test/bundle.ts';
import { topicsForThisFile } from '../../../scripts/test/kafka.ts';
import {
  produce,
  readTopic,
  tempStateDir,
  testBrokers,
  uniqueName,
} from '../../core/test/runtime/kafka-helpers.ts';
import { avroSerde, SchemaRegistryClient } from '../src/index.ts';
import { type CustomerTotal, type Order, orderSchema } from './fixtures/avro-schemas.ts';

const topics = topicsForThisFile();
let registry: RunningRegistry;
let script: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  [registry, script] = await Promise.all([
    startRegistry(),
    bundleEntry(join(import.meta.dirname, 'fixtures', 'avro-count-app.ts')),
  ]);
}, 240_000);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await registry?.stop();
});

function startApp(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: 'ignore' });
  children.push(child);
  return child;
}

describe('an Avro aggregation SIGKILLed under exactly_once', () => {
  it('restarts to exact totals: each customer counts 1..n once', async () => {
    const input = await topics.create('crash-orders', 2);
    const output = await topics.create('crash-totals', 2);
    const applicationId = uniqueName('avro-crash');
    topics.cleanUpPrefix(applicationId);
    const writer = avroSerde<Order>({
      registry: new SchemaRegistryClient({ url: registry.url }),
      schema: orderSchema,
    });
    await writer.init([input]);
    const customers = ['ann', 'bob', 'cid', 'dee', 'eve', 'fay'];
    const batch = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => {
        const customer = customers[(from + i) % customers.length]!;
        return { key: customer, value: writer.serialize({ customer, amount: from + i }, input) };
      });
    await produce(input, batch(0, 600));
    const env = {
      APPLICATION_ID: applicationId,
      KAFKA_BROKERS: testBrokers().join(','),
      STATE_DIR: tempStateDir(),
      REGISTRY_URL: registry.url,
      INPUT_TOPIC: input,
      OUTPUT_TOPIC: output,
    };
    const first = startApp(env);
    // Kill it once it has written part of the output (read_uncommitted: mid-transaction too).
    await readTopic(output, (rs) => rs.length >= 50, { timeoutMs: 90_000, readUncommitted: true });
    first.kill('SIGKILL');
    await produce(input, batch(600, 600));
    startApp(env);

    const records = await readTopic(output, (rs) => rs.length >= 1200, {
      timeoutMs: 150_000,
      settleMs: 3_000,
    });
    const reader = avroSerde<CustomerTotal>({ registry: new SchemaRegistryClient({ url: registry.url }) });
    const seqs = new Map<string, CustomerTotal[]>();
    for (const r of records) {
      await reader.prepare(r.value);
      const t = reader.deserialize(r.value);
      seqs.set(t.customer, [...(seqs.get(t.customer) ?? []), t]);
    }
    expect(records.length).toBe(1200);
    for (const [c, totals] of seqs) {
      const i = customers.indexOf(c);
      expect(totals.map((t) => t.orders)).toEqual(Array.from({ length: 200 }, (_, k) => k + 1));
      // Customer i gets amounts i, i+6, i+12, ...: the running sums.
      let sum = 0;
      expect(totals.map((t) => t.total)).toEqual(Array.from({ length: 200 }, (_, k) => (sum += i + 6 * k)));
    }
    expect(seqs.size).toBe(6);
  }, 300_000);
});
