import { describe, expect, it } from 'vitest';
import { partitionCountsOfNewTopics, type TopicMetadataSource } from '../../src/kafka/new-topics.ts';

/** kafkajs' error shape for a broker error code. */
const brokerError = (type: string) => Object.assign(new Error(type), { type, retriable: true });

/** A topic list and metadata answers played in order, as a broker that has just created `t`. */
function scripted(
  lists: string[][],
  metadata: Array<Error | number>,
): TopicMetadataSource & { calls: number } {
  const source = {
    calls: 0,
    async listTopics() {
      return lists.length > 1 ? lists.shift()! : lists[0]!;
    },
    async fetchTopicMetadata({ topics }: { topics: string[] }) {
      source.calls++;
      const next = metadata.length > 1 ? metadata.shift()! : metadata[0]!;
      if (next instanceof Error) throw next;
      return {
        topics: topics.map((name) => ({
          name,
          partitions: Array.from({ length: next }, () => ({ leader: 1 })),
        })),
      };
    },
  };
  return source;
}

describe('partitionCountsOfNewTopics', () => {
  it('waits for a topic just created: absent from the list, then unknown, then without partitions', async () => {
    const source = scripted(
      [[], [], ['t', 'u']],
      [brokerError('UNKNOWN_TOPIC_OR_PARTITION'), brokerError('LEADER_NOT_AVAILABLE'), 0, 4],
    );
    const counts = await partitionCountsOfNewTopics(source, ['t', 'u'], {
      missingGraceMs: 5_000,
      metadataWaitMs: 5_000,
    });
    expect(counts).toEqual(
      new Map([
        ['t', 4],
        ['u', 4],
      ]),
    );
    expect(source.calls).toBe(4);
  });

  it('leaves out a topic still missing after the grace, and counts the others', async () => {
    const started = Date.now();
    const counts = await partitionCountsOfNewTopics(scripted([['t']], [2]), ['t', 'missing'], {
      missingGraceMs: 400,
    });
    expect(counts).toEqual(new Map([['t', 2]]));
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('throws another error at once, and a lasting "unknown topic" after the wait', async () => {
    const denied = Object.assign(new Error('denied'), { type: 'TOPIC_AUTHORIZATION_FAILED' });
    const once = scripted([['t']], [denied, 3]);
    await expect(partitionCountsOfNewTopics(once, ['t'])).rejects.toBe(denied);
    expect(once.calls).toBe(1);
    const started = Date.now();
    await expect(
      partitionCountsOfNewTopics(scripted([['t']], [brokerError('UNKNOWN_TOPIC_OR_PARTITION')]), ['t'], {
        metadataWaitMs: 500,
      }),
    ).rejects.toThrow('UNKNOWN_TOPIC_OR_PARTITION');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
