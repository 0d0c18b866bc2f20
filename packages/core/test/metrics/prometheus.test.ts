// The registry reads the recorder at scrape time: each metric of docs/observability.md's table carries the
// value the runtime recorded, under Kafka Streams' name and labels (the broker test checks that
// the runtime records them; this one pins the values and the levels).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMetricsRegistry, type StandbyLagSource } from '../../src/metrics/prometheus.ts';
import { StreamsMetricsRecorder } from '../../src/metrics/streams-metrics-recorder.ts';

type Level = 'off' | 'info' | 'debug';

function setup(
  level: Level,
  positions: Array<{ taskId: string; topic: string; partition: number; position: number }> = [],
  asyncInFlight: Array<{ taskId: string; inFlight: number }> = [],
  standbys: StandbyLagSource[] = [],
) {
  const recorder = new StreamsMetricsRecorder(level);
  let state = 'RUNNING';
  const registry = createMetricsRegistry({
    applicationId: 'app',
    threadId: 'app-StreamThread-1',
    recorder,
    state: () => state,
    positions: () => positions,
    asyncInFlight: () => asyncInFlight,
    standbys: () => standbys,
  });
  const scrape = async () => {
    const text = await registry.metrics();
    const value = (name: string, labels: Record<string, string | number> = {}) => {
      const lines = text
        .split('\n')
        .filter((l) => l.startsWith(`${name}{`))
        .filter((l) => Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
      if (lines.length !== 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${lines.length} samples`);
      return Number(lines[0]!.split(' ').at(-1));
    };
    const count = (name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`)).length;
    return { text, value, count };
  };
  return { recorder, scrape, setState: (s: string) => (state = s) };
}

describe('the Prometheus registry', () => {
  it('reports thread, task, transaction and punctuation values as recorded, labelled by thread and task', async () => {
    const { recorder: r, scrape } = setup('info');
    for (let i = 0; i < 3; i++) r.polled();
    r.processed('0_0', 300, 60);
    r.processed('0_1', 200, 40);
    r.punctuated(2);
    r.committed(['0_0', '0_1'], 12);
    r.committed(['0_0'], 4);
    r.transactionCommitted(7);
    r.transactionCommitted(3);
    r.transactionAborted();
    r.rolledBack('0_1');
    r.dropped('0_0');
    r.dropped('0_0');
    r.enforcedProcessing('0_1', 40);
    r.enforcedProcessing('0_1', 0);
    const s = await scrape();
    const thread = { thread_id: 'app-StreamThread-1', application_id: 'app' };
    expect(s.value('kstreams_stream_thread_process_total', thread)).toBe(500);
    // Less than a second since the sensors were made: Kafka's rate divides by one sample of at least 1 s.
    expect(s.value('kstreams_stream_thread_process_rate')).toBeCloseTo(500, 0);
    expect(s.value('kstreams_stream_thread_process_latency_avg')).toBeCloseTo(0.2, 5);
    expect(s.value('kstreams_stream_thread_process_latency_max')).toBeCloseTo(0.2, 5);
    expect(s.value('kstreams_stream_thread_poll_rate')).toBeCloseTo(3, 0);
    expect(s.value('kstreams_stream_thread_commit_total')).toBe(2);
    expect(s.value('kstreams_stream_thread_commit_rate')).toBeCloseTo(2, 0);
    expect(s.value('kstreams_stream_thread_commit_latency_avg')).toBe(8);
    expect(s.value('kstreams_stream_thread_commit_latency_max')).toBe(12);
    expect(s.value('kstreams_stream_thread_punctuate_total')).toBe(2);
    expect(s.value('kstreams_stream_thread_punctuate_rate')).toBeCloseTo(2, 0);
    expect(s.value('kstreams_stream_thread_transaction_commit_total')).toBe(2);
    expect(s.value('kstreams_stream_thread_transaction_abort_total')).toBe(1);
    expect(s.value('kstreams_stream_thread_transaction_commit_latency_avg')).toBe(5);
    expect(s.value('kstreams_stream_thread_transaction_commit_latency_max')).toBe(7);
    expect(s.value('kstreams_stream_task_process_total', { task_id: '0_0' })).toBe(300);
    expect(s.value('kstreams_stream_task_process_rate', { task_id: '0_1' })).toBeCloseTo(200, 0);
    expect(s.value('kstreams_stream_task_dropped_records_total', { task_id: '0_0' })).toBe(2);
    expect(s.value('kstreams_stream_task_dropped_records_total', { task_id: '0_1' })).toBe(0);
    expect(s.value('kstreams_stream_task_rollbacks_total', { task_id: '0_1' })).toBe(1);
    expect(s.value('kstreams_stream_task_rollbacks_total', { task_id: '0_0' })).toBe(0);
    expect(s.value('kstreams_stream_task_enforced_processing_total', { task_id: '0_1' })).toBe(40);
    expect(s.value('kstreams_stream_task_enforced_processing_rate', { task_id: '0_1' })).toBeCloseTo(40, 0);
    expect(s.value('kstreams_stream_task_enforced_processing_total', { task_id: '0_0' })).toBe(0);
  });

  it('reports lag per input partition as log end minus position, once a fetch told the log end', async () => {
    const { recorder: r, scrape } = setup('info', [
      { taskId: '0_0', topic: 'in', partition: 0, position: 40 },
      { taskId: '0_1', topic: 'in', partition: 1, position: 7 },
      { taskId: '0_2', topic: 'in', partition: 2, position: 0 },
    ]);
    r.fetched('in', 0, 100);
    r.fetched('in', 1, 7);
    r.fetched('in', 0, 120); // a later fetch moves the log end
    const s = await scrape();
    expect(s.value('kstreams_consumer_records_lag', { topic: 'in', partition: 0, task_id: '0_0' })).toBe(80);
    expect(s.value('kstreams_consumer_records_lag', { topic: 'in', partition: 1 })).toBe(0);
    // Partition 2 was never fetched: no sample rather than a made-up 0.
    expect(s.count('kstreams_consumer_records_lag')).toBe(2);
  });

  it('reports async operators per task: in flight now, calls, timeouts, latency; none for tasks without calls', async () => {
    const { recorder: r, scrape } = setup(
      'info',
      [],
      [
        { taskId: '0_0', inFlight: 12 },
        { taskId: '0_1', inFlight: 0 },
      ],
    );
    r.asyncCalled('0_0', 20, false);
    r.asyncCalled('0_0', 40, false);
    r.asyncCalled('0_0', 100, true);
    r.processed('0_2', 10, 1); // a task without async calls
    const s = await scrape();
    expect(s.value('kstreams_stream_task_async_in_flight', { task_id: '0_0' })).toBe(12);
    expect(s.value('kstreams_stream_task_async_in_flight', { task_id: '0_1' })).toBe(0);
    expect(s.value('kstreams_stream_task_async_calls_total', { task_id: '0_0' })).toBe(3);
    expect(s.value('kstreams_stream_task_async_timeouts_total', { task_id: '0_0' })).toBe(1);
    expect(s.value('kstreams_stream_task_async_latency_avg', { task_id: '0_0' })).toBeCloseTo(160 / 3, 5);
    expect(s.value('kstreams_stream_task_async_latency_max', { task_id: '0_0' })).toBe(100);
    expect(s.count('kstreams_stream_task_async_calls_total')).toBe(1);
    expect(s.count('kstreams_stream_task_async_latency_avg')).toBe(1);
  });

  it("reports a standby's lag behind its changelog's end, once the end is known", async () => {
    const partition = { topic: 'app-counts-changelog', partition: 2, lag: null as number | null };
    const { scrape } = setup('info', [], [], [{ taskId: '1_2', topicPartitions: [partition] }]);
    expect((await scrape()).count('kstreams_restore_consumer_records_lag')).toBe(0);
    partition.lag = 60;
    const labels = { task_id: '1_2', topic: 'app-counts-changelog', partition: 2 };
    expect((await scrape()).value('kstreams_restore_consumer_records_lag', labels)).toBe(60);
    partition.lag = 0;
    expect((await scrape()).value('kstreams_restore_consumer_records_lag', labels)).toBe(0);
    expect((await scrape()).value('kstreams_stream_state_updater_standby_updating_tasks')).toBe(1);
  });

  it('reports a restore as it goes and when it is done, and the app state as a one-hot gauge', async () => {
    const { recorder: r, scrape, setState } = setup('info');
    setState('REBALANCING');
    const p = r.restoreStarted({
      taskId: '1_0',
      storeName: 'counts',
      topic: 'app-counts-changelog',
      partition: 0,
      startOffset: 10,
      endOffset: 110,
    });
    r.restoredBatch(p, 30, 40);
    let s = await scrape();
    const labels = { task_id: '1_0', store_name: 'counts', partition: 0 };
    expect(s.value('kstreams_restore_records_restored', labels)).toBe(30);
    expect(s.value('kstreams_restore_restore_remaining_records', labels)).toBe(70);
    expect(s.value('kstreams_client_state', { state: 'REBALANCING' })).toBe(1);
    expect(s.value('kstreams_client_state', { state: 'RUNNING' })).toBe(0);
    r.restoredBatch(p, 70, 110);
    r.restoreEnded(p);
    setState('RUNNING');
    s = await scrape();
    expect(s.value('kstreams_restore_records_restored', labels)).toBe(100);
    expect(s.value('kstreams_restore_restore_remaining_records', labels)).toBe(0);
    expect(s.value('kstreams_client_state', { state: 'RUNNING' })).toBe(1);
    expect(s.count('kstreams_client_state')).toBe(7);
  });

  it('reports store operations and source nodes at debug level only, and nothing of the runtime when off', async () => {
    const info = setup('info');
    expect(info.recorder.storeOperations('0_0', 'counts')).toBeUndefined();
    expect((await info.scrape()).count('kstreams_stream_state_put_rate')).toBe(0);

    const debug = setup('debug');
    const ops = debug.recorder.storeOperations('0_0', 'counts')!;
    ops.put.count(15);
    ops.put.record(1, 0.5);
    ops.get.record(1, 0.25);
    ops.range.record(1, 2);
    ops.flush.record(1, 9);
    const s = await debug.scrape();
    const store = { task_id: '0_0', store_name: 'counts' };
    expect(s.value('kstreams_stream_state_put_rate', store)).toBeCloseTo(16, 0);
    // Sampled: the untimed puts count for the rate, only the timed one for the latency.
    expect(s.value('kstreams_stream_state_put_latency_avg', store)).toBe(0.5);
    expect(s.value('kstreams_stream_state_get_latency_max', store)).toBe(0.25);
    expect(s.value('kstreams_stream_state_range_latency_avg', store)).toBe(2);
    expect(s.value('kstreams_stream_state_flush_latency_max', store)).toBe(9);
    debug.recorder.sourceNodeProcessed('1_2', 'KSTREAM-SOURCE-0000000006', 40);
    const node = { task_id: '1_2', processor_node_id: 'KSTREAM-SOURCE-0000000006' };
    const withNodes = await debug.scrape();
    expect(withNodes.value('kstreams_stream_processor_node_process_total', node)).toBe(40);
    expect(withNodes.value('kstreams_stream_processor_node_process_rate', node)).toBeCloseTo(40, 0);
    info.recorder.sourceNodeProcessed('1_2', 'KSTREAM-SOURCE-0000000006', 40);
    expect((await info.scrape()).count('kstreams_stream_processor_node_process_total')).toBe(0);

    const off = setup('off');
    off.recorder.polled();
    off.recorder.processed('0_0', 100, 5);
    off.recorder.committed(['0_0'], 3);
    off.recorder.dropped('0_0');
    const o = await off.scrape();
    expect(o.value('kstreams_stream_thread_process_total')).toBe(0);
    expect(o.value('kstreams_stream_thread_commit_total')).toBe(0);
    expect(o.value('kstreams_stream_thread_poll_rate')).toBe(0);
    expect(o.count('kstreams_stream_task_dropped_records_total')).toBe(0);
  });
});

describe('loading', () => {
  it('loads prom-client with the first registry, not with core (it costs every start 40-140 ms)', () => {
    const script = `
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      const loaded = () => Object.keys(require.cache).some((f) => f.includes('/prom-client/'));
      const { KafkaStreams, StreamsBuilder } = await import('./src/index.ts');
      const builder = new StreamsBuilder();
      builder.stream('in').to('out');
      const app = new KafkaStreams(builder.build(), { applicationId: 'lazy', brokers: 'localhost:1' });
      const before = loaded();
      const text = await app.metricsRegistry.metrics();
      console.log(JSON.stringify({ before, after: loaded(), scraped: text.includes('application_id="lazy"') }));
    `;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
    });
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({ before: false, after: true, scraped: true });
  });
});
