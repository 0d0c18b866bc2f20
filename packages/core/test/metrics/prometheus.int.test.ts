// A Prometheus scrape of a running word count on the real broker (exactly_once): rates while input
// flows, lag falling to 0 once it is consumed, transactions, the state gauge, restore metrics
// after the state directory is wiped, and the store metrics of debug level.
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams } from '../../src/index.ts';
import { wordCount } from '../runtime/fixtures/word-count-topology.ts';
import { produce, stopAfterEach, tempStateDir, testBrokers, waitFor } from '../runtime/kafka-helpers.ts';
import { committedLag } from '../runtime/lag.ts';
import { makeLines } from '../runtime/text-fixtures.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format, the lines this registry writes (no escapes in our label values). */
function parse(text: string): Sample[] {
  return text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((line) => {
      const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(m[2] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((x) => [x[1]!, x[2]!]),
      );
      return { name: m[1]!, labels, value: Number(m[3]) };
    });
}

async function scrape(app: KafkaStreams) {
  const samples = parse(await app.metricsRegistry.metrics());
  const all = (name: string) => samples.filter((s) => s.name === name);
  const one = (name: string) => {
    const found = all(name);
    if (found.length !== 1) throw new Error(`${name}: ${found.length} samples`);
    return found[0]!.value;
  };
  return { all, one };
}

describe('Prometheus metrics of a running word count', () => {
  it('reports processing, commits, transactions, lag per partition, state and restores', async () => {
    const { input, output, applicationId } = await topics.forApp('metrics', 4);
    const stateDir = tempStateDir();
    const newApp = (recordingLevel: 'info' | 'debug' = 'info') => {
      const app = new KafkaStreams(wordCount(input, output), {
        applicationId,
        brokers: testBrokers(),
        stateDir,
        processingGuarantee: 'exactly_once',
        logger: 'warn',
        metrics: { recordingLevel },
      });
      apps.push(app);
      return app;
    };
    const app = newApp();
    await app.start();
    await waitFor(() => app.state === 'RUNNING', 60_000);
    expect(
      (await scrape(app)).all('kstreams_client_state').find((s) => s.labels.state === 'RUNNING')?.value,
    ).toBe(1);

    // Input keeps flowing while we scrape: the rates are over the last samples.
    const lines = makeLines(4000, 5, 7);
    let fed = 0;
    const feeding = (async () => {
      for (; fed < lines.length; fed += 250) {
        await produce(
          input,
          lines.slice(fed, fed + 250).map((value, i) => ({ key: `k${fed + i}`, value })),
        );
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    let flowing: Awaited<ReturnType<typeof scrape>> | undefined;
    await waitFor(async () => {
      const s = await scrape(app);
      if (s.one('kstreams_stream_thread_process_total') > 0 && fed < lines.length) flowing = s;
      return flowing !== undefined || fed >= lines.length;
    }, 60_000);
    expect(flowing, 'a scrape while the input was still being fed').toBeDefined();
    expect(flowing!.one('kstreams_stream_thread_process_rate')).toBeGreaterThan(0);
    expect(flowing!.one('kstreams_stream_thread_poll_rate')).toBeGreaterThan(0);
    expect(flowing!.one('kstreams_stream_thread_process_latency_avg')).toBeGreaterThanOrEqual(0);
    expect(flowing!.all('kstreams_stream_task_process_rate').some((s) => s.value > 0)).toBe(true);
    await feeding;

    // Every input and repartition partition is consumed and committed (the lag metric alone can read
    // 0 while words are still on their way through the repartition topic: it knows the log end only
    // from the last fetch, as Kafka's records-lag does).
    const repartition = `${applicationId}-counts-repartition`;
    expect((await committedLag(applicationId, [input], (t) => t === repartition, 90_000)).behind).toEqual([]);
    // Then the metric agrees: lag 0 on all 8 (4 tasks of each sub-topology), the repartition
    // topic's trailing transaction markers included.
    await waitFor(async () => {
      const lag = (await scrape(app)).all('kstreams_consumer_records_lag');
      return lag.length === 8 && lag.every((s) => s.value === 0);
    }, 90_000);
    const done = await scrape(app);
    const byTopic = new Set(done.all('kstreams_consumer_records_lag').map((s) => s.labels.topic));
    expect(byTopic).toEqual(new Set([input, `${applicationId}-counts-repartition`]));
    // Sub-topology 0 reads the lines, sub-topology 1 the words: 4000 lines of 5 words.
    const taskTotals = done.all('kstreams_stream_task_process_total');
    const sum = (prefix: string) =>
      taskTotals.filter((s) => s.labels.task_id!.startsWith(prefix)).reduce((n, s) => n + s.value, 0);
    expect(sum('0_')).toBe(4000);
    expect(sum('1_')).toBe(20_000);
    expect(done.one('kstreams_stream_thread_process_total')).toBe(24_000);
    expect(done.one('kstreams_stream_thread_commit_total')).toBeGreaterThan(0);
    expect(done.one('kstreams_stream_thread_commit_latency_max')).toBeGreaterThan(0);
    expect(done.one('kstreams_stream_thread_transaction_commit_total')).toBeGreaterThan(0);
    expect(done.one('kstreams_stream_thread_transaction_abort_total')).toBe(0);
    expect(done.all('kstreams_stream_task_rollbacks_total').every((s) => s.value === 0)).toBe(true);
    // Store and node metrics are debug level only.
    expect(done.all('kstreams_stream_state_put_rate')).toEqual([]);
    expect(done.all('kstreams_stream_processor_node_process_total')).toEqual([]);
    // No standby replicas configured: the standby gauges read the app's metadata and find none.
    expect(done.one('kstreams_stream_state_updater_standby_updating_tasks')).toBe(0);
    expect(done.all('kstreams_restore_consumer_records_lag')).toEqual([]);
    expect(app.metrics()).toMatchObject({ standbyTasks: 0, standbyRecordsLag: 0, standbyRecordsUpdated: 0 });
    await app.close();
    expect((await scrape(app)).all('kstreams_client_state').find((s) => s.value === 1)?.labels.state).toBe(
      'NOT_RUNNING',
    );

    // A wiped state directory: the counts come back from the changelog, and the scrape says so.
    rmSync(stateDir, { recursive: true, force: true });
    const restarted = newApp('debug');
    await restarted.start();
    await waitFor(() => restarted.state === 'RUNNING', 90_000);
    const after = await scrape(restarted);
    const restored = after.all('kstreams_restore_records_restored');
    expect(restored.map((s) => s.labels.store_name)).toEqual(['counts', 'counts', 'counts', 'counts']);
    expect(restored.reduce((n, s) => n + s.value, 0)).toBeGreaterThan(0);
    expect(after.all('kstreams_restore_restore_remaining_records').every((s) => s.value === 0)).toBe(true);

    // At debug level the counts stores report their calls once words flow again.
    await produce(input, [{ key: 'x', value: 'debug level store metrics' }]);
    await waitFor(async () => {
      const puts = (await scrape(restarted)).all('kstreams_stream_state_put_rate');
      return puts.some((s) => s.value > 0);
    }, 60_000);
    const debug = await scrape(restarted);
    const puts = debug.all('kstreams_stream_state_put_rate');
    expect(new Set(puts.map((s) => s.labels.store_name))).toEqual(new Set(['counts']));
    expect(debug.all('kstreams_stream_state_get_rate').some((s) => s.value > 0)).toBe(true);
    // Source nodes (debug): the one line read by the input's source node, its four words by the
    // repartition topic's.
    await waitFor(async () => {
      const nodes = (await scrape(restarted)).all('kstreams_stream_processor_node_process_total');
      return nodes.reduce((n, s) => n + s.value, 0) === 5;
    }, 30_000);
    const nodes = (await scrape(restarted)).all('kstreams_stream_processor_node_process_total');
    const byNode = (node: string) =>
      nodes.filter((s) => s.labels.processor_node_id === node).reduce((n, s) => n + s.value, 0);
    expect(byNode('KSTREAM-SOURCE-0000000000')).toBe(1);
    expect(byNode('KSTREAM-SOURCE-0000000007')).toBe(4);
  }, 240_000);
});
