// Three instances of the enrichment app as child processes, SIGKILLed and restarted one after
// another while orders and payments flow in. Under exactly_once the output, read read_committed,
// is exactly the generator's expected output: every enriched order once, every order's status
// (paid, or unpaid once its payment window has closed) once, timestamps included. Under
// at_least_once nothing is lost (duplicates allowed, every copy right).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProcessingGuarantee } from '@kstreams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleEntry } from '../../../scripts/test/bundle.ts';
import { freePort } from '../../../scripts/test/free-port.ts';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../../../scripts/test/kafka.ts';
import { inputProgress } from '../src/common/input-progress.ts';
import { feederProducer } from '../src/common/kafka.ts';
import { random, simulatedStart } from '../src/common/simulation.ts';
import { ensureTopics } from '../src/common/topics.ts';
import { sendEvents, sendReferenceData } from '../src/enrichment/feeder.ts';
import { generateShop, type Shop, shopHours } from '../src/enrichment/generator.ts';
import { EnrichmentOutputReader } from '../src/enrichment/output.ts';
import { enrichmentTopics } from '../src/enrichment/topology.ts';
import { allRunning, eventually, type Instance, killAll, logsOf, root, startInstance } from './instances.ts';

const PARTITIONS = 4;
const topics = topicsForThisFile();
let script: string;
const stateRoot = mkdtempSync(join(tmpdir(), 'enrich-crash-'));

beforeAll(async () => {
  script = await bundleEntry(join(root, 'packages/examples/src/enrichment/main.ts'));
});
afterAll(() => rmSync(stateRoot, { recursive: true, force: true }));

interface CrashRun {
  shop: Shop;
  reader: EnrichmentOutputReader;
  kills: number;
  instances: Instance[];
}

/**
 * Reference data first, then three instances; orders and payments fed over ~`feedMs` while an
 * instance is SIGKILLed every 2.5-4 s (at least `minKills` times) and started again (same state
 * directory) 0.5-1.5 s later;
 * then the end-of-data payments, and reading until both outputs have every key and the input is
 * committed.
 */
async function crashRun(
  guarantee: ProcessingGuarantee,
  orders: number,
  seed: number,
  feedMs: number,
  minKills: number,
): Promise<CrashRun> {
  const tag = { exactly_once: 'eos', exactly_once_v2: 'eos2', at_least_once: 'alo' }[guarantee];
  const applicationId = uniqueName(`enrich-${tag}`);
  topics.cleanUpPrefix(applicationId);
  const names = enrichmentTopics(`${applicationId}-in`, `${applicationId}-out`);
  const shop = generateShop({
    seed,
    orders,
    customers: 100,
    startMs: simulatedStart(shopHours(orders)),
    partitions: PARTITIONS,
  });
  const kafka = testKafka(`${applicationId}-test`);
  const admin = kafka.admin();
  await admin.connect();
  const producer = feederProducer(kafka);
  await producer.connect();
  const reader = new EnrichmentOutputReader(kafka, names, `${applicationId}-reader`);
  const instances: Instance[] = [];
  try {
    await ensureTopics(admin, Object.values(names), PARTITIONS);
    await sendReferenceData(producer, names, shop);
    const ports = [await freePort(), await freePort(), await freePort()];
    const start = (i: number) => {
      const args = ['--brokers', testBrokers().join(','), '--application-id', applicationId];
      args.push(
        '--input',
        `${applicationId}-in`,
        '--output',
        `${applicationId}-out`,
        '--guarantee',
        guarantee,
      );
      args.push('--state-dir', join(stateRoot, `${applicationId}-${i}`), '--partitions', String(PARTITIONS));
      // A killed instance's tasks move after its session times out: sooner than the default 10 s.
      args.push('--session-timeout-ms', '6000');
      if (guarantee === 'at_least_once') args.push('--commit-interval-ms', '1000');
      instances[i] = startInstance(script, args, ports[i]!, `${applicationId}-${i}`);
    };
    for (let i = 0; i < 3; i++) start(i);
    await allRunning(instances);
    await reader.start();

    const rand = random(seed);
    let feeding = true;
    let kills = 0;
    const killer = (async () => {
      while (feeding || kills < minKills) {
        await new Promise((r) => setTimeout(r, 2_500 + rand() * 1_500));
        const i = Math.floor(rand() * 3);
        instances[i]!.child.kill('SIGKILL');
        await instances[i]!.exited;
        kills++;
        await new Promise((r) => setTimeout(r, 500 + rand() * 1_000));
        start(i);
      }
    })();
    // Batches of 100 events spread over about feedMs.
    const pause = Math.max(50, feedMs / Math.ceil(shop.events.length / 100));
    await sendEvents(producer, names, shop.events, {
      onBatch: () => new Promise((r) => setTimeout(r, pause)),
    });
    feeding = false;
    await killer;
    await sendEvents(producer, names, shop.endOfData);

    await eventually('every output key read and the input committed', 120_000, async () => {
      const [o, p] = await Promise.all([
        inputProgress(admin, applicationId, names.orders),
        inputProgress(admin, applicationId, names.payments),
      ]);
      const { read, expected } = reader.progress(shop);
      const settled = Date.now() - reader.lastRecordTime > 2_000;
      return o.caughtUp && p.caughtUp && read >= expected && settled ? true : undefined;
    }).catch((error) => {
      const { read, expected } = reader.progress(shop);
      throw new Error(`${error.message}: ${read}/${expected} keys\n${logsOf(instances)}`);
    });
    return { shop, reader, kills, instances };
  } finally {
    await reader.stop();
    await producer.disconnect();
    await admin.disconnect();
    await killAll(instances);
  }
}

describe('enrichment: 3 instances, SIGKILLed and restarted while orders flow', () => {
  // exactly_once: a transaction per task; exactly_once_v2: one per stream thread (KIP-447 fencing).
  it.each(['exactly_once', 'exactly_once_v2'] as const)(
    '%s: the committed output is exactly the expected output, each record once',
    async (guarantee) => {
      const { shop, reader, kills } = await crashRun(guarantee, 3_000, 5, 15_000, 3);
      expect(kills).toBeGreaterThanOrEqual(3);
      expect(shop.counts.paidLate + shop.counts.neverPaid).toBeGreaterThan(100);
      expect(reader.check(shop)).toBeUndefined();
      expect(reader.enriched).toHaveLength(shop.expected.enriched.length);
      expect(reader.status).toHaveLength(shop.expected.status.length);
      console.log(
        `[enrichment ${guarantee}] ${kills} SIGKILLs; ${reader.enriched.length} enriched orders, ` +
          `${reader.status.length} statuses (${shop.counts.paidLate + shop.counts.neverPaid} unpaid), all exactly once`,
      );
    },
  );

  it('at_least_once: nothing lost, every copy right (duplicates allowed)', async () => {
    const { shop, reader, kills } = await crashRun('at_least_once', 1_500, 6, 10_000, 2);
    expect(kills).toBeGreaterThanOrEqual(2);
    expect(reader.check(shop, true)).toBeUndefined();
    console.log(
      `[enrichment at_least_once] ${kills} SIGKILLs; duplicates: ` +
        `${reader.enriched.length - shop.expected.enriched.length} enriched orders, ` +
        `${reader.status.length - shop.expected.status.length} statuses`,
    );
  });
});
