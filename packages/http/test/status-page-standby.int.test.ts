// The status page's standby rows (issue 37), in headless Chromium: two instances, each with its
// active tasks and standbys of the other's stateful tasks, the second one's /status fetched over
// HTTP as for any member. The apps' state is given as metadataForLocalThreads() would give it once
// the stream thread feeds standbys (the metadata itself: local-metadata.ts, tested in core); the
// standbys catch up over a few polls, so their lag falls to 0 on the page. Broker-free, but beside
// the other page test (it needs Chromium, which the unit run does not install).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { KafkaStreams, TaskMetadata, ThreadMetadata } from '@kstreams/core';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InstanceStatus, type StreamsHttpServer, startHttpServer } from '../src/index.ts';
import { ensureChromium, launchChromium, OUTPUT } from './fixtures/chromium.ts';
import { wordCount } from './fixtures/word-count.ts';

const APP = 'page-standby';
const INPUT = 'lines';
const CHANGELOG = `${APP}-counts-changelog`;
/** Each standby starts this far behind and applies 400 records between two polls of its instance. */
const START_LAG = 1_600;

function task(taskId: string, partitions: TaskMetadata['topicPartitions']): TaskMetadata {
  return {
    taskId,
    state: 'RUNNING',
    topicPartitions: partitions,
    processRate: 12.5,
    processTotal: 400,
    rollbacksTotal: 0,
    droppedRecordsTotal: 0,
    lastCommitMs: Date.now() - 300,
    restores: [],
  };
}

/** An instance running `partitions` of both sub-topologies, with standbys of `standbyOf`'s counts. */
function instanceApp(host: () => string, peers: () => string[], partitions: number[], standbyOf: number[]) {
  let polls = 0;
  const topology = wordCount(INPUT, 'counts');
  const metadata = (): ThreadMetadata => {
    const standbyPosition = 10_000 - START_LAG + Math.min(START_LAG, 400 * polls++);
    return {
      threadName: `${host()}-StreamThread-1`,
      threadState: 'RUNNING',
      processRate: 25,
      commitRate: 1,
      lastCommitMs: Date.now() - 300,
      activeTasks: partitions.flatMap((p) => [
        task(`0_${p}`, [
          { topic: INPUT, partition: p, position: 100, committedOffset: 100, endOffset: 100, lag: 0 },
        ]),
        task(`1_${p}`, [
          {
            topic: `${APP}-counts-repartition`,
            partition: p,
            position: 300,
            committedOffset: 300,
            endOffset: 300,
            lag: 0,
          },
        ]),
      ]),
      // As standbyTaskMetadata gives them: the changelog partitions, position and lag; no commits.
      standbyTasks: standbyOf.map((p) => ({
        ...task(`1_${p}`, [
          {
            topic: CHANGELOG,
            partition: p,
            position: standbyPosition,
            committedOffset: null,
            endOffset: 10_000,
            lag: 10_000 - standbyPosition,
          },
        ]),
        processRate: 0,
        processTotal: 0,
        lastCommitMs: null,
      })),
    };
  };
  return {
    state: 'RUNNING',
    error: undefined,
    topology,
    // Its port is known once its server listens, after the app is made.
    config: {
      applicationId: APP,
      processingGuarantee: 'exactly_once_v2',
      get applicationServer() {
        return host();
      },
    },
    brokerConnectivity: () => ({ reachable: true }),
    metadataForLocalThreads: () => [metadata()],
    metadataForAllStreamsClients: async () => peers().map((h) => ({ host: h, topicPartitions: [] })),
  } as unknown as KafkaStreams;
}

describe('the status page with standby tasks', () => {
  const servers: StreamsHttpServer[] = [];
  let browser: Browser | undefined;
  beforeAll(() => ensureChromium(), 600_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  it('lists each instance’s standbys under its active tasks, badged, with their changelog lag', async () => {
    const hosts: string[] = [];
    const layout = [
      { partitions: [0, 1], standbyOf: [2, 3] },
      { partitions: [2, 3], standbyOf: [0, 1] },
    ];
    for (const [i, { partitions, standbyOf }] of layout.entries()) {
      const app = instanceApp(
        () => hosts[i]!,
        () => hosts,
        partitions,
        standbyOf,
      );
      const server = await startHttpServer({ app: () => app, port: 0, host: '127.0.0.1' });
      servers.push(server);
      hosts.push(`127.0.0.1:${server.port}`);
    }

    // /status carries the standbys and their summed lag (the page reads the other instance's so).
    const status = (await (await fetch(`http://${hosts[1]}/status`)).json()) as InstanceStatus;
    expect(status.threads[0]!.standbyTasks.map((t) => t.taskId)).toEqual(['1_0', '1_1']);
    expect(status.standbyLag).toBe(2 * START_LAG);
    expect(status.totalLag).toBe(0);

    browser = await launchChromium();
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`http://${hosts[0]}/`, { waitUntil: 'load' });
    await page.waitForFunction(() => document.querySelectorAll('tr.task.standby').length === 4, {
      timeout: 30_000,
      polling: 100,
    });
    // Behind at first: the first polls show a lag above 0 on every standby row.
    const firstLags = await page.$$eval('tr.task.standby td.lag', (tds) =>
      tds.map((td) => Number(td.textContent)),
    );
    expect(firstLags).toHaveLength(4);
    for (const lag of firstLags) expect(lag).toBeGreaterThan(0);

    // Caught up within a few polls: every standby's lag reaches 0, each with its sparkline.
    await page.waitForFunction(
      () => [...document.querySelectorAll('tr.task.standby td.lag')].every((td) => td.textContent === '0'),
      { timeout: 30_000, polling: 250 },
    );
    const cards = await page.evaluate(() =>
      [...document.querySelectorAll('section.instance')].map((c) => {
        const rows = (kind: string) => [...c.querySelectorAll(`tr.task.${kind}`)];
        return {
          host: c.getAttribute('data-host'),
          facts: c.querySelector('p.facts')?.textContent ?? '',
          active: rows('active').map((r) => r.getAttribute('data-task')),
          standby: rows('standby').map((r) => ({
            task: r.getAttribute('data-task'),
            badge: r.querySelector('.badge.standby')?.textContent ?? null,
            partition: r.querySelector('td.partition')?.textContent,
            rate: r.querySelectorAll('td.num')[1]?.textContent,
            sparkPoints:
              r.querySelector('svg.spark polyline')?.getAttribute('points')?.split(' ').length ?? 0,
          })),
        };
      }),
    );
    expect(cards.map((c) => c.host)).toEqual(hosts);
    const [a, b] = cards;
    expect(a!.active).toEqual(['0_0', '1_0', '0_1', '1_1']);
    expect(b!.active).toEqual(['0_2', '1_2', '0_3', '1_3']);
    // Each instance holds standbys of the other's stateful tasks, never of its own.
    expect(a!.standby.map((s) => s.task)).toEqual(['1_2', '1_3']);
    expect(b!.standby.map((s) => s.task)).toEqual(['1_0', '1_1']);
    for (const card of cards) {
      for (const s of card.standby) {
        expect(s.badge).toBe('standby');
        expect(s.partition).toBe(`${CHANGELOG}-${s.task!.slice(2)}`);
        expect(s.rate).toBe('—'); // a standby processes nothing
        expect(s.sparkPoints).toBeGreaterThanOrEqual(2); // the lag's fall, drawn
      }
      expect(card.facts).toContain('4 tasks · lag 0 · 2 standbys · standby lag 0');
    }
    expect(await page.$eval('#summary', (p) => p.textContent)).toMatch(
      /^2 instances · 8 tasks · 4 standbys · /,
    );
    // Visibly apart: a standby row's cells are tinted, an active row's are not.
    const background = (kind: string) =>
      page.$eval(`tr.task.${kind} td`, (td) => getComputedStyle(td).backgroundColor);
    expect(await background('standby')).not.toBe(await background('active'));
    expect(await page.$$eval('tr.task.active .badge', (b) => b.length)).toBe(0);
    expect(errors).toEqual([]);

    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'status-page-standby.png'), fullPage: true });
    expect(existsSync(join(OUTPUT, 'status-page-standby.png'))).toBe(true);
  }, 120_000);
});
