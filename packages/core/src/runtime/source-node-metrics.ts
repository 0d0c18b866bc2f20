// Kafka Streams' processor-node metrics at debug level, which it records for source nodes only:
// each source node's records, taken from its partitions' queues once per processing turn (the
// queues count what they hand out), so no per-record call is added.
import type { StreamsMetricsRecorder } from '../metrics/streams-metrics-recorder.ts';
import type { RecordQueue } from '../processor/internals/record-queue.ts';
import type { Topology } from '../processor/topology.ts';

/** The source node that reads each input topic of a sub-topology (internal topics resolved). */
export function sourceNodesByTopic(
  topology: Topology,
  applicationId: string,
  subtopology: number,
): Map<string, string> {
  const internal = new Set(
    topology.subtopologies(applicationId).find((s) => s.id === subtopology)?.repartitionSourceTopics ?? [],
  );
  const byTopic = new Map<string, string>();
  const nodes = topology.describe().subtopologies.find((s) => s.id === subtopology)?.nodes ?? [];
  for (const node of nodes) {
    if (node.type !== 'source') continue;
    for (const topic of node.topics ?? []) {
      const prefixed = `${applicationId}-${topic}`;
      byTopic.set(internal.has(prefixed) ? prefixed : topic, node.name);
    }
  }
  return byTopic;
}

export class SourceNodeMetrics {
  private readonly reported = new Map<RecordQueue, number>();

  constructor(
    private readonly recorder: StreamsMetricsRecorder,
    private readonly taskId: string,
    private readonly queues: ReadonlyArray<{ queue: RecordQueue; node: string }>,
  ) {}

  /** Records what each source node's queues handed out since the last report. */
  report(): void {
    for (const { queue, node } of this.queues) {
      const before = this.reported.get(queue) ?? 0;
      if (queue.polled === before) continue;
      this.reported.set(queue, queue.polled);
      this.recorder.sourceNodeProcessed(this.taskId, node, queue.polled - before);
    }
  }
}
