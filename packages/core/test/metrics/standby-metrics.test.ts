// Standby tasks' metrics (issue 37): the recorder counts the changelog records a standby applied
// (Kafka Streams' update-total/-rate), the registry reads the standbys and their changelog lag from
// what metadataForLocalThreads lists (local-metadata.ts' standbyTaskMetadata) at scrape time.
import { describe, expect, it } from 'vitest';
import { createMetricsRegistry, standbyMetrics } from '../../src/metrics/prometheus.ts';
import { StreamsMetricsRecorder } from '../../src/metrics/streams-metrics-recorder.ts';
import { type StandbyMetadataSource, standbyTaskMetadata } from '../../src/runtime/local-metadata.ts';

const CHANGELOG = 'app-counts-changelog';

function standby(id: string, offsets: Array<[partition: number, offset: number]>): StandbyMetadataSource {
  return {
    id,
    changelogOffsets: () => offsets.map(([partition, offset]) => ({ topic: CHANGELOG, partition, offset })),
  };
}

function setup(level: 'off' | 'info') {
  const recorder = new StreamsMetricsRecorder(level);
  let sources: StandbyMetadataSource[] = [];
  const standbys = () => sources.map((s) => standbyTaskMetadata(s, recorder));
  const registry = createMetricsRegistry({
    applicationId: 'app',
    threadId: 'app-StreamThread-1',
    recorder,
    state: () => 'RUNNING',
    positions: () => [],
    asyncInFlight: () => [],
    standbys,
  });
  const scrape = async () => {
    const lines = (await registry.metrics()).split('\n');
    return (name: string, labels: Record<string, string | number> = {}) =>
      lines
        .filter((l) => l.startsWith(`${name}{`))
        .filter((l) => Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
        .map((l) => Number(l.split(' ').at(-1)));
  };
  return { recorder, scrape, standbys, setStandbys: (s: StandbyMetadataSource[]) => (sources = s) };
}

describe('standby metrics', () => {
  it('count standbys, records applied per standby and each changelog partition’s lag', async () => {
    const { recorder: r, scrape, standbys, setStandbys } = setup('info');
    setStandbys([standby('1_0', [[0, 460]]), standby('1_2', [[2, 90]])]);
    r.fetched(CHANGELOG, 0, 500); // the changelog reader's fetch: 40 behind
    r.standbyUpdated('1_0', 300);
    r.standbyUpdated('1_0', 160);
    r.standbyUpdated('1_2', 0); // an empty fetch records nothing
    const value = await scrape();
    expect(
      value('kstreams_stream_state_updater_standby_updating_tasks', { thread_id: 'app-StreamThread-1' }),
    ).toEqual([2]);
    expect(value('kstreams_stream_task_update_total', { task_id: '1_0' })).toEqual([460]);
    expect(value('kstreams_stream_task_update_rate', { task_id: '1_0' })[0]).toBeCloseTo(460, 0);
    expect(value('kstreams_stream_task_update_total', { task_id: '1_2' })).toEqual([]);
    expect(
      value('kstreams_restore_consumer_records_lag', { task_id: '1_0', topic: CHANGELOG, partition: 0 }),
    ).toEqual([40]);
    // No fetch of partition 2 yet: its lag is unknown, so no series rather than a made-up 0.
    expect(value('kstreams_restore_consumer_records_lag', { task_id: '1_2' })).toEqual([]);
    expect(standbyMetrics(standbys(), r)).toEqual({
      standbyTasks: 2,
      standbyRecordsLag: 40,
      standbyRecordsUpdated: 460,
    });

    // The standby caught up, another fetch tells partition 2's end; then 1_0 is promoted (closed).
    setStandbys([standby('1_0', [[0, 500]]), standby('1_2', [[2, 90]])]);
    r.fetched(CHANGELOG, 2, 100);
    const after = await scrape();
    expect(after('kstreams_restore_consumer_records_lag', { task_id: '1_0' })).toEqual([0]);
    expect(after('kstreams_restore_consumer_records_lag', { task_id: '1_2', partition: 2 })).toEqual([10]);
    setStandbys([standby('1_2', [[2, 90]])]);
    r.standbyClosed('1_0');
    const promoted = await scrape();
    expect(promoted('kstreams_stream_state_updater_standby_updating_tasks')).toEqual([1]);
    expect(promoted('kstreams_stream_task_update_total', { task_id: '1_0' })).toEqual([]);
    expect(promoted('kstreams_restore_consumer_records_lag')).toEqual([10]);
    // The app's total stays: records applied since it started, as its other counters.
    expect(standbyMetrics(standbys(), r)).toEqual({
      standbyTasks: 1,
      standbyRecordsLag: 10,
      standbyRecordsUpdated: 460,
    });
  });

  it('record nothing with metrics off, and an app without standbys shows 0 of them', async () => {
    const { recorder: r, scrape } = setup('off');
    r.standbyUpdated('1_0', 50);
    const value = await scrape();
    expect(r.standbyRecordsUpdatedTotal).toBe(0);
    expect(value('kstreams_stream_task_update_total')).toEqual([]);
    expect(value('kstreams_stream_state_updater_standby_updating_tasks')).toEqual([0]);
    expect(standbyMetrics([], r)).toEqual({
      standbyTasks: 0,
      standbyRecordsLag: 0,
      standbyRecordsUpdated: 0,
    });
  });
});
