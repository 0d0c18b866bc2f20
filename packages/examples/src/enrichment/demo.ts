// `npm run demo -- enrichment`: a generated shop's customers and products fed first, the
// enrichment app started under exactly_once, the orders and payments fed, both outputs read back
// read_committed and checked against the generator's expected output (every enriched order once,
// every order's status once, timestamps included), then a summary; common/demo.ts starts the
// broker if needed and removes all it started.
import {
  type DemoContext,
  DemoFailure,
  demoAppOptions,
  num,
  runDemo,
  say,
  secs,
  untilDone,
  watchForFailure,
} from '../common/demo.ts';
import type { InputProgress } from '../common/input-progress.ts';
import { feederProducer } from '../common/kafka.ts';
import { parseOrExit } from '../common/options.ts';
import { simulatedStart } from '../common/simulation.ts';
import { ensureTopics } from '../common/topics.ts';
import { startEnrichment } from './app.ts';
import { sendEvents, sendReferenceData } from './feeder.ts';
import { generateShop, shopHours } from './generator.ts';
import { parseShopArgs, type ShopFlags } from './options.ts';
import { EnrichmentOutputReader } from './output.ts';
import {
  ENRICHED_STORE,
  type EnrichedOrder,
  enrichmentTopics,
  type OrderStatus,
  PAYMENT_GRACE_MS,
  PAYMENT_WINDOW_MS,
} from './topology.ts';

const PARTITIONS = 4;
const TIMEOUT_MS = 5 * 60_000;
/** After the last record arrived, how long to go on reading for a duplicate. */
const SETTLE_MS = 2_000;

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const money = (n: number) =>
  n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

async function demo(ctx: DemoContext, options: ShopFlags): Promise<void> {
  const began = Date.now();
  const { run, kafka, logger, onCleanUp } = ctx;
  const topics = enrichmentTopics(run, run);
  const startMs = simulatedStart(shopHours(options.orders));
  const shop = generateShop({ ...options, startMs, partitions: PARTITIONS });
  const last = shop.events.at(-1)!.timestamp;
  say(
    `Data: ${num(options.orders)} orders of ${num(options.customers)} customers (${num(shop.counts.guests)} guest orders), ` +
      `${hhmm(startMs)}-${hhmm(last)} UTC (seed ${options.seed}); ${num(shop.counts.paid)} paid within ` +
      `${PAYMENT_WINDOW_MS / 60_000} minutes, ${num(shop.counts.paidLate)} paid too late, ${num(shop.counts.neverPaid)} never paid`,
  );

  await ensureTopics(ctx.admin, Object.values(topics), PARTITIONS);
  const producer = feederProducer(kafka);
  await producer.connect();
  onCleanUp(() => producer.disconnect());
  // The reference data is in its topics before the app starts: the global customers table is
  // loaded before the first order is processed, and the products precede the orders.
  await sendReferenceData(producer, topics, shop);
  const app = await startEnrichment(
    demoAppOptions(ctx, { input: run, output: run, partitions: PARTITIONS }),
    logger,
  );
  onCleanUp(() => app.close());
  const failure = watchForFailure(app.app);
  const base = `http://${app.applicationServer}`;
  say(`App: ${run}, exactly_once, ${PARTITIONS} partitions per topic`);
  say(`  in:  ${[topics.orders, topics.payments, topics.customers, topics.products].join(', ')}`);
  say(`  out: ${topics.enriched}, ${topics.status}`);
  say(`Queries while it runs: ${base}/stores/${ENRICHED_STORE}/keys/o-000001  status page: ${base}/`);

  const reader = new EnrichmentOutputReader(kafka, topics, `${run}-reader`);
  await reader.start();
  onCleanUp(() => reader.stop());
  const records = [...shop.events, ...shop.endOfData];
  let fed = false;
  const feeding = sendEvents(producer, topics, records).then(() => {
    fed = true;
  });
  const processingStart = Date.now();
  const status = (s: InputProgress) => {
    const { read, expected } = reader.progress(shop);
    return `${num(read)}/${num(expected)} results | ${num(s.committed)}/${num(options.orders)} orders committed | ${secs(Date.now() - processingStart)}`;
  };
  await untilDone(ctx, topics.orders, {
    failure,
    fraction: () => {
      const { read, expected } = reader.progress(shop);
      return read / expected;
    },
    status,
    done: (s) => {
      const { read, expected } = reader.progress(shop);
      return fed && s.caughtUp && read >= expected && Date.now() - reader.lastRecordTime > SETTLE_MS;
    },
    timeoutMs: TIMEOUT_MS,
  });
  await feeding;
  const processedIn = Date.now() - processingStart;

  say();
  const wrong = reader.check(shop);
  if (wrong !== undefined) throw new DemoFailure(`the output disagrees with the data: ${wrong}`);
  const unpaid = shop.counts.paidLate + shop.counts.neverPaid;
  say(
    `All ${num(options.orders)} orders are in ${topics.enriched.replace(`${run}-`, '')} exactly once, with their customer and product;`,
  );
  say(
    `all ${num(options.orders)} have exactly one status in ${topics.status.replace(`${run}-`, '')}: ${num(shop.counts.paid)} paid, ` +
      `${num(unpaid)} unpaid (each reported once its window, ${PAYMENT_WINDOW_MS / 60_000} min + ${PAYMENT_GRACE_MS / 1000} s grace, had closed).`,
  );
  await summary(base, reader.enriched, reader.status);
  say();
  say(`Processed in ${secs(processedIn)}; total ${secs(Date.now() - began)}. Cleaning up...`);
}

/** Paid revenue per product category, the unpaid orders per city, and one order from the store. */
async function summary(
  base: string,
  enriched: ReadonlyArray<{ key: string; value: unknown }>,
  statuses: ReadonlyArray<{ key: string; value: unknown; timestamp: number }>,
): Promise<void> {
  const orders = new Map(enriched.map((r) => [r.key, r.value as EnrichedOrder]));
  const revenue = new Map<string, number>();
  const unpaidByCity = new Map<string, number>();
  for (const { key, value } of statuses) {
    const status = value as OrderStatus;
    const order = orders.get(key)!;
    if (status.status === 'paid')
      revenue.set(order.product.category, (revenue.get(order.product.category) ?? 0) + status.paid);
    else {
      const city = order.customer?.city ?? '(guest)';
      unpaidByCity.set(city, (unpaidByCity.get(city) ?? 0) + 1);
    }
  }
  say();
  say('Paid revenue per product category (joined by foreign key):');
  for (const [category, sum] of [...revenue].sort((a, b) => b[1] - a[1]))
    say(`  ${category.padEnd(12)} ${money(sum).padStart(12)}`);
  say('Unpaid orders per customer city (from the global customers table):');
  const cities = [...unpaidByCity].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  say(`  ${cities.map(([city, n]) => `${city} ${n}`).join(', ')}`);
  const firstUnpaid = statuses.find((s) => (s.value as OrderStatus).status === 'unpaid')!;
  const res = await fetch(`${base}/stores/${ENRICHED_STORE}/keys/${firstUnpaid.key}`);
  if (!res.ok)
    throw new DemoFailure(
      `GET /stores/${ENRICHED_STORE}/keys/${firstUnpaid.key} answered ${res.status}: ${await res.text()}`,
    );
  say(
    `An unpaid order in the store '${ENRICHED_STORE}' (GET /stores/${ENRICHED_STORE}/keys/${firstUnpaid.key}):`,
  );
  say(`  ${JSON.stringify(await res.json())}`);
}

/** `npm run demo -- enrichment [--orders N] [--customers N] [--seed N]`. */
export async function enrichmentDemo(argv: readonly string[]): Promise<never> {
  const options = parseOrExit('demo', () => parseShopArgs(argv));
  return runDemo('enrichment', (ctx) => demo(ctx, options));
}
