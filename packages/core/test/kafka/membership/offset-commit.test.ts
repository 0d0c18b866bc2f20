// OffsetCommit v8 against bytes written out by hand from Kafka's OffsetCommitRequest.json and
// OffsetCommitResponse.json, and the commit's reading of the partitions' error codes.
import { describe, expect, it } from 'vitest';
import { isGroupGenerationError, isRetriableError } from '../../../src/kafka/error-kinds.ts';
import type { Body, CoordinatorLink, Response } from '../../../src/kafka/membership/coordinator.ts';
import { decodeOffsetCommit, encodeOffsetCommit } from '../../../src/kafka/membership/group-requests.ts';
import { commitGroupOffsets } from '../../../src/kafka/membership/offset-commit.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const str = (s: string) => Buffer.from(s).toString('hex');

describe('OffsetCommit v8', () => {
  it('writes the generation, member id and group.instance.id, then the offsets per topic', () => {
    const bytes = encodeOffsetCommit(
      {
        groupId: 'g',
        generationId: 5,
        memberId: 'm',
        groupInstanceId: 'i',
        topics: [{ topic: 't', partitions: [{ partition: 1, offset: 42 }] }],
      },
      8,
    );
    expect(bytes).toEqual(
      hex(
        `00 02${str('g')} 00000005 02${str('m')} 02${str('i')}` + // header tags, group, generation, member, instance
          ` 02 02${str('t')} 02 00000001 000000000000002a ffffffff 00 00` + // partition 1 at 42, leader epoch -1, null metadata
          ' 00 00', // topic's and request's tags
      ),
    );
  });

  it("reads each partition's error code", () => {
    expect(
      decodeOffsetCommit(hex(`00 00000000 02 02${str('t')} 03 00000000 0000 00 00000001 0016 00 00 00`), 8),
    ).toEqual({
      throttleTimeMs: 0,
      topics: [
        {
          topic: 't',
          partitions: [
            { partition: 0, errorCode: 0 },
            { partition: 1, errorCode: 22 },
          ],
        },
      ],
    });
  });
});

/** Answers every OffsetCommit with one error code for all partitions. */
class FakeLink {
  readonly sent: unknown[] = [];
  founds = 0;
  constructor(private readonly errorCode: number) {}
  async findCoordinator(): Promise<void> {
    this.founds++;
  }
  async partitionCounts(): Promise<Map<string, number>> {
    return new Map();
  }
  async disconnect(): Promise<void> {}
  async send<A extends 'OffsetCommit'>(_api: A, body: Body<A>): Promise<Response<A>> {
    this.sent.push(body);
    return {
      throttleTimeMs: 0,
      topics: body.topics.map((t) => ({
        topic: t.topic,
        partitions: t.partitions.map((p) => ({ partition: p.partition, errorCode: this.errorCode })),
      })),
    } as Response<A>;
  }
}

const generation = { generationId: 3, memberId: 'm-1', groupInstanceId: 'pod-0' };

describe('commitGroupOffsets', () => {
  it("commits in the member's generation, one entry per topic", async () => {
    const link = new FakeLink(0);
    await commitGroupOffsets(link as unknown as CoordinatorLink, 'app', generation, [
      { topic: 'a', partition: 0, offset: 5 },
      { topic: 'b', partition: 1, offset: 7 },
      { topic: 'a', partition: 2, offset: 9 },
    ]);
    expect(link.sent).toEqual([
      {
        groupId: 'app',
        ...generation,
        topics: [
          {
            topic: 'a',
            partitions: [
              { partition: 0, offset: 5 },
              { partition: 2, offset: 9 },
            ],
          },
          { topic: 'b', partitions: [{ partition: 1, offset: 7 }] },
        ],
      },
    ]);
  });

  it('sends nothing for no offsets', async () => {
    const link = new FakeLink(0);
    await commitGroupOffsets(link as unknown as CoordinatorLink, 'app', generation, []);
    expect(link.sent).toEqual([]);
  });

  it('throws ILLEGAL_GENERATION as an error of a group that moved on', async () => {
    const error = await commitGroupOffsets(
      new FakeLink(22) as unknown as CoordinatorLink,
      'app',
      generation,
      [{ topic: 'a', partition: 0, offset: 5 }],
    ).catch((e: Error) => e);
    expect(isGroupGenerationError(error)).toBe(true);
    expect(String(error)).toContain("OffsetCommit of a-0 for group 'app' failed: ILLEGAL_GENERATION");
  });

  it('looks the coordinator up again when it moved, and throws a retriable error', async () => {
    const link = new FakeLink(16);
    const error = await commitGroupOffsets(link as unknown as CoordinatorLink, 'app', generation, [
      { topic: 'a', partition: 0, offset: 5 },
    ]).catch((e: Error) => e);
    expect(link.founds).toBe(1);
    expect(isRetriableError(error)).toBe(true);
  });
});
