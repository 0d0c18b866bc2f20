// Tests leave the broker as they found it: topicsForThisFile deletes the topics and consumer
// groups of a prefix also when the file never created a topic itself (the examples' test only
// named its app's prefix, so its topics and ~40 groups stayed after every run), and readTopic
// deletes its reader group. The first block's afterAll runs before the second block.
import { describe, expect, it } from 'vitest';
import { testKafka, topicsForThisFile, uniqueName } from '../../../../scripts/test/kafka.ts';
import { readTopic } from './kafka-helpers.ts';

const prefix = uniqueName('cleanup-app');
const readerGroup = uniqueName('cleanup-reader');

describe('a test file that only names its app prefix', () => {
  const topics = topicsForThisFile();
  it('leaves topics and groups of that prefix behind it (until afterAll)', async () => {
    topics.cleanUpPrefix(prefix);
    const admin = testKafka().admin();
    await admin.connect();
    const topic = `${prefix}-counts-changelog`;
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    // A group with a committed offset, as an app's group is after a run.
    await admin.setOffsets({ groupId: prefix, topic, partitions: [{ partition: 0, offset: '0' }] });
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId);
    expect(groups).toContain(prefix);
    await admin.disconnect();
    await readTopic(topic, () => true, { groupId: readerGroup, timeoutMs: 5_000 });
  });
});

describe('after that file', () => {
  it('the broker has none of them', async () => {
    const admin = testKafka().admin();
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    const groups = (await admin.listGroups()).groups
      .map((g) => g.groupId)
      .filter((g) => g.startsWith(prefix) || g === readerGroup);
    await admin.disconnect();
    expect({ topics, groups }).toEqual({ topics: [], groups: [] });
  });
});
