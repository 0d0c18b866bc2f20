// Order totals in Avro, Protobuf and JSON Schema (the same topology, fixtures/formats.ts) under
// exactly_once against the real broker and a real registry, one registry for the file:
// the app (a child process, fixtures/count-app.ts) is SIGKILLed mid-run and restarted; then a
// compatible v2 order schema is registered, the registry is stopped, v2 orders are written, and
// the registry comes back on the same port and storage. Every customer's totals are 1..n orders,
// once each, the sums exact, the v2 field read.
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningRegistry, startRegistry } from '../../../scripts/registry/registry.ts';
import { bundleEntry } from '../../../scripts/test/bundle.ts';
import { freePort } from '../../../scripts/test/free-port.ts';
import { topicsForThisFile } from '../../../scripts/test/kafka.ts';
import {
  produce,
  readTopic,
  tempStateDir,
  testBrokers,
  uniqueName,
} from '../../core/test/runtime/kafka-helpers.ts';
import { SchemaRegistryClient } from '../src/index.ts';
import { type CustomerTotal, FORMATS, type Format, type Order, serdesFor } from './fixtures/formats.ts';

const topics = topicsForThisFile();
const registryDir = tempStateDir();
let registryPort: number;
let registry: RunningRegistry;
let script: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  registryPort = await freePort();
  [registry, script] = await Promise.all([
    // In an H2 file, so that a restart on the same port finds the schemas again.
    startRegistry({ port: registryPort, dataDir: registryDir }),
    bundleEntry(join(import.meta.dirname, 'fixtures', 'count-app.ts')),
  ]);
}, 240_000);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await registry?.stop();
});

function startApp(env: Record<string, string>): ChildProcess {
  const log = openSync(join(env.STATE_DIR!, `app-${children.length}.log`), 'w');
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', log],
  });
  children.push(child);
  return child;
}

const CUSTOMERS = ['ann', 'bob', 'cid', 'dee', 'eve', 'fay'];
const PER_BATCH = 300;

/** One format's run: its topics, writers and app environment. */
async function startRun(format: Format) {
  const input = await topics.create(`${format}-orders`, 2);
  const output = await topics.create(`${format}-totals`, 2);
  const applicationId = uniqueName(`${format}-crash`);
  topics.cleanUpPrefix(applicationId);
  const writers = new SchemaRegistryClient({ url: registry.url });
  const v1 = serdesFor[format].order(writers, 1);
  const v2 = serdesFor[format].order(writers, 2);
  await v1.init([input]);
  // Order n goes to customer n % 6 with amount n; from v2 on, every other one is a web order.
  const batch = (from: number, serde: typeof v1, withChannel: boolean) =>
    Array.from({ length: PER_BATCH }, (_, i) => {
      const n = from + i;
      const customer = CUSTOMERS[n % CUSTOMERS.length]!;
      const order: Order = {
        customer,
        amount: n,
        ...(withChannel ? { channel: n % 2 === 0 ? 'web' : 'shop' } : {}),
      };
      return { key: customer, value: serde.serialize(order, input) };
    });
  await produce(input, batch(0, v1, false));
  const env = {
    FORMAT: format,
    APPLICATION_ID: applicationId,
    KAFKA_BROKERS: testBrokers().join(','),
    STATE_DIR: tempStateDir(),
    REGISTRY_URL: registry.url,
    INPUT_TOPIC: input,
    OUTPUT_TOPIC: output,
  };
  const first = startApp(env);
  // Killed once it has written part of the output (read_uncommitted: mid-transaction too).
  await readTopic(output, (rs) => rs.length >= 30, { timeoutMs: 90_000, readUncommitted: true });
  first.kill('SIGKILL');
  startApp(env);
  await readTopic(output, (rs) => rs.length >= PER_BATCH, { timeoutMs: 90_000 });
  return { format, input, output, v2, secondBatch: () => batch(PER_BATCH, v2, true) };
}

async function checkTotals(format: Format, output: string): Promise<void> {
  const records = await readTopic(output, (rs) => rs.length >= 2 * PER_BATCH, {
    timeoutMs: 120_000,
    settleMs: 2_000,
  });
  const reader = serdesFor[format].total(new SchemaRegistryClient({ url: registry.url }));
  const seqs = new Map<string, CustomerTotal[]>();
  for (const r of records) {
    await reader.prepare(r.value);
    const t = reader.deserialize(r.value);
    seqs.set(t.customer, [...(seqs.get(t.customer) ?? []), t]);
  }
  expect(records.length, format).toBe(2 * PER_BATCH);
  expect(seqs.size, format).toBe(CUSTOMERS.length);
  const perCustomer = (2 * PER_BATCH) / CUSTOMERS.length;
  for (const [customer, totals] of seqs) {
    const c = CUSTOMERS.indexOf(customer);
    const orders = Array.from({ length: perCustomer }, (_, k) => k + 1);
    expect(
      totals.map((t) => t.orders),
      `${format} ${customer}`,
    ).toEqual(orders);
    // Customer c gets amounts c, c+6, c+12, ...: the running sums.
    let sum = 0;
    const sums = Array.from({ length: perCustomer }, (_, k) => (sum += c + 6 * k));
    expect(
      totals.map((t) => t.total),
      `${format} ${customer}`,
    ).toEqual(sums);
    // The v2 orders of an even customer are all web orders, of an odd one none.
    expect(totals.at(-1)!.web, `${format} ${customer}`).toBe(c % 2 === 0 ? PER_BATCH / CUSTOMERS.length : 0);
  }
}

describe('order totals under exactly_once in Avro, Protobuf and JSON Schema', () => {
  // The three formats side by side, so that one registry restart serves them all.
  it('are exact across a SIGKILL, a new schema version and a registry restart', async () => {
    // Set up one after the other: Apicurio 2.4.2 on H2 answered concurrent registrations of
    // different schemas with HTTP 500 (a content-hash unique index violation), seen 2026-12-06.
    const runs = [];
    for (const format of FORMATS) runs.push(await startRun(format));

    // A compatible v2 per format, registered before the registry goes down; its id is new to
    // the apps, which meet it while the registry is away and retry until it is back.
    for (const run of runs) await run.v2.init([run.input]);
    await registry.stop();
    await Promise.all(runs.map((run) => produce(run.input, run.secondBatch())));
    await new Promise((r) => setTimeout(r, 1_000));
    registry = await startRegistry({ port: registryPort, dataDir: registryDir });

    for (const run of runs) await checkTotals(run.format, run.output);
  }, 300_000);
});
