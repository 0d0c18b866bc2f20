// Source nodes' process metrics (debug level): which node reads which topic, internal topics
// included, and the records each node's queues handed out between two reports.
import { describe, expect, it } from 'vitest';
import { StreamsMetricsRecorder } from '../../src/metrics/streams-metrics-recorder.ts';
import { RecordQueue } from '../../src/processor/internals/record-queue.ts';
import { SourceNodeMetrics, sourceNodesByTopic } from '../../src/runtime/source-node-metrics.ts';
import { wordCount } from '../runtime/fixtures/word-count-topology.ts';

function queueWith(topic: string, records: number): RecordQueue {
  const q = new RecordQueue(topic, 0);
  for (let offset = 0; offset < records; offset++)
    q.add({ topic, partition: 0, offset, timestamp: offset, key: null, value: null, headers: {} }, offset);
  return q;
}

describe('source node metrics', () => {
  it('name the source node of each input topic, the repartition topic with its application id', () => {
    const topology = wordCount('lines', 'counts-out');
    expect(sourceNodesByTopic(topology, 'wc', 0)).toEqual(new Map([['lines', 'KSTREAM-SOURCE-0000000000']]));
    expect(sourceNodesByTopic(topology, 'wc', 1)).toEqual(
      new Map([['wc-counts-repartition', 'KSTREAM-SOURCE-0000000007']]),
    );
  });

  it('record what each queue handed out since the last report, at debug level only', () => {
    const recorder = new StreamsMetricsRecorder('debug');
    const a = queueWith('a', 5);
    const b = queueWith('b', 5);
    const metrics = new SourceNodeMetrics(recorder, '0_0', [
      { queue: a, node: 'SOURCE-A' },
      { queue: b, node: 'SOURCE-B' },
    ]);
    a.poll();
    a.poll();
    b.poll();
    metrics.report();
    metrics.report(); // nothing new: nothing recorded twice
    a.poll();
    metrics.report();
    const total = (node: string) => recorder.sourceNodes.get(`0_0\0${node}`)?.process.total;
    expect(total('SOURCE-A')).toBe(3);
    expect(total('SOURCE-B')).toBe(1);

    const info = new StreamsMetricsRecorder('info');
    const q = queueWith('a', 1);
    q.poll();
    new SourceNodeMetrics(info, '0_0', [{ queue: q, node: 'SOURCE-A' }]).report();
    expect(info.sourceNodes.size).toBe(0);
  });
});
