// The status page in headless Chromium (Debian's package, installed here when missing): two
// word-count instances of one app, the page of one of them must show both with their tasks and the
// rendered topology and whether each reaches Kafka, and (numStandbyReplicas 1) the standby of each
// stateful task on the instance that does not run it; the screenshot goes to packages/http/test-output/.
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaStreams } from '@kstreams/core';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../../../scripts/test/kafka.ts';
import { type StreamsHttpServer, startHttpServer } from '../src/index.ts';
import { ensureChromium, launchChromium, OUTPUT } from './fixtures/chromium.ts';
import { wordCount } from './fixtures/word-count.ts';

const topics = topicsForThisFile();

describe('the status page', () => {
  const apps: KafkaStreams[] = [];
  const servers: StreamsHttpServer[] = [];
  let browser: Browser | undefined;
  beforeAll(() => ensureChromium(), 600_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all(apps.map((a) => a.close({ timeoutMs: 20_000 })));
    await Promise.all(servers.map((s) => s.close()));
  });

  it('shows both instances of a word count, their tasks and the topology, in headless Chromium', async () => {
    const { input, output, applicationId } = await topics.forApp('page', 4);
    for (let i = 0; i < 2; i++) {
      let app: KafkaStreams | undefined;
      const server = await startHttpServer({ app: () => app, port: 0, host: '127.0.0.1' });
      servers.push(server);
      app = new KafkaStreams(wordCount(input, output), {
        applicationId,
        brokers: testBrokers(),
        applicationServer: `127.0.0.1:${server.port}`,
        // Two instances in one process: each its own state directory (one instance per directory).
        stateDir: join(tmpdir(), uniqueName(`page-state-${i}`)),
        commitIntervalMs: 500,
        numStandbyReplicas: 1,
        logger: 'silent',
      });
      apps.push(app);
    }
    await Promise.all(apps.map((a) => a.start()));
    const producer = testKafka().producer();
    await producer.connect();
    await producer.send({
      topic: input,
      messages: Array.from({ length: 400 }, (_, i) => ({ key: `k${i}`, value: `the quick fox ${i % 13}` })),
    });
    await producer.disconnect();

    browser = await launchChromium();
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1000 });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${servers[0]!.port}/`, { waitUntil: 'load' });
    // 8 tasks (2 sub-topologies x 4 partitions) split over the two instances, all running.
    await page.waitForFunction(
      () => {
        const cards = [...document.querySelectorAll('section.instance')];
        const running = cards.filter((c) => c.querySelector('.state')?.textContent === 'RUNNING');
        const tasks = new Set(
          [...document.querySelectorAll('tr.task[data-kind="active"]')].map((r) =>
            r.getAttribute('data-task'),
          ),
        );
        return cards.length === 2 && running.length === 2 && tasks.size === 8;
      },
      { timeout: 90_000, polling: 250 },
    );
    await page.waitForSelector('#topology svg', { timeout: 30_000 });
    const seen = await page.evaluate(() =>
      [...document.querySelectorAll('section.instance')].map((c) => ({
        host: c.getAttribute('data-host'),
        tasks: [
          ...new Set(
            [...c.querySelectorAll('tr.task[data-kind="active"]')].map((r) => r.getAttribute('data-task')),
          ),
        ],
        partitions: [...c.querySelectorAll('td.partition')].map((td) => td.textContent),
      })),
    );
    expect(new Set(seen.map((s) => s.host))).toEqual(new Set(servers.map((s) => `127.0.0.1:${s.port}`)));
    for (const s of seen) expect(s.tasks.length).toBe(4);
    expect(seen.flatMap((s) => s.tasks).sort()).toEqual([
      '0_0',
      '0_1',
      '0_2',
      '0_3',
      '1_0',
      '1_1',
      '1_2',
      '1_3',
    ]);
    // The counts' tasks (1_x, the stateful sub-topology) each have a standby on the other card.
    await page.waitForFunction(() => document.querySelectorAll('tr.task[data-kind="standby"]').length === 4, {
      timeout: 60_000,
      polling: 250,
    });
    const standbys = await page.evaluate(() =>
      [...document.querySelectorAll('section.instance')].map((c) =>
        [...c.querySelectorAll('tr.task[data-kind="standby"]')]
          .map((r) => r.getAttribute('data-task'))
          .sort(),
      ),
    );
    const stateful = seen.map((s) => s.tasks.filter((t) => t?.startsWith('1_')).sort());
    expect(standbys).toEqual([stateful[1], stateful[0]]);
    expect(seen.flatMap((s) => s.partitions)).toContain(`${input}-0`);
    expect(seen.flatMap((s) => s.partitions)).toContain(`${applicationId}-counts-repartition-3`);
    const topologyText = await page.$eval('#topology svg', (svg) => svg.textContent ?? '');
    expect(topologyText).toContain('KSTREAM-AGGREGATE-0000000003');
    // Lag falls to 0 once the input is consumed, and the sparklines have drawn.
    await page.waitForFunction(
      () => [...document.querySelectorAll('td.lag')].every((td) => td.textContent === '0'),
      { timeout: 60_000, polling: 250 },
    );
    // One input partition per task and one changelog partition per standby: 8 + 4 sparklines.
    expect(await page.$$eval('svg.spark polyline', (ls) => ls.length)).toBe(12);
    // Each card says whether its instance reaches Kafka (the outage case: broker-health.test.ts).
    const brokerLines = await page.$$eval('section.instance p.broker', (ps) => ps.map((p) => p.textContent));
    expect(brokerLines).toHaveLength(2);
    for (const line of brokerLines) expect(line).toMatch(/^Kafka reachable · /);
    expect(errors).toEqual([]);

    // Interactive queries: each instance answers for "the" (in all 400 lines), one from its own
    // task, the other by forwarding to it; both give the owner.
    const ask = async (server: StreamsHttpServer, path: string) => {
      const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
      return { code: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const deadline = Date.now() + 30_000;
    let answers: Array<Awaited<ReturnType<typeof ask>>> = [];
    while (Date.now() < deadline) {
      answers = await Promise.all(servers.map((s) => ask(s, '/stores/counts/keys/the')));
      if (answers.every((a) => a.body.value === 400)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(answers.map((a) => a.code)).toEqual([200, 200]);
    expect(answers.map((a) => a.body.value)).toEqual([400, 400]);
    expect(answers[0]!.body.host).toBe(answers[1]!.body.host);
    expect(servers.map((s) => `127.0.0.1:${s.port}`)).toContain(answers[0]!.body.host);
    expect((await ask(servers[1]!, '/stores/counts/keys/zebra')).code).toBe(404);
    expect((await ask(servers[0]!, '/stores/nope/keys/the')).code).toBe(404);
    expect((await ask(servers[0]!, '/stores/counts?limit=0')).code).toBe(400);
    const local = await Promise.all(servers.map((s) => ask(s, '/stores/counts?limit=1000')));
    const words = local.flatMap((l) => (l.body.entries as Array<{ key: string }>).map((e) => e.key));
    // "the", "quick", "fox" and 0..12, each on exactly one instance.
    expect(words.sort()).toEqual([
      '0',
      '1',
      '10',
      '11',
      '12',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      'fox',
      'quick',
      'the',
    ]);
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'status-page.png'), fullPage: true });
    expect(existsSync(join(OUTPUT, 'status-page.png'))).toBe(true);
  }, 240_000);
});
