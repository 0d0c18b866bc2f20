// The membership codecs against byte vectors written out by hand from Kafka's message definitions
// (clients/src/main/resources/common/message/*.json), round trips, and kafkajs' own consumer
// protocol codec as an independent reader and writer.
import { AssignerProtocol } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import {
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
  type Subscription,
} from '../../../src/kafka/membership/consumer-protocol.ts';
import { negotiate } from '../../../src/kafka/membership/coordinator.ts';
import {
  decodeHeartbeat,
  decodeJoinGroup,
  decodeLeaveGroup,
  decodeSyncGroup,
  encodeHeartbeat,
  encodeJoinGroup,
  encodeLeaveGroup,
  encodeSyncGroup,
} from '../../../src/kafka/membership/group-requests.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const str = (s: string) => Buffer.from(s).toString('hex');

describe('consumer protocol', () => {
  const subscription: Subscription = {
    topics: ['a', 'b'],
    userData: Buffer.from([1, 2, 3]),
    ownedPartitions: [{ topic: 'a', partitions: [0, 2] }],
    generationId: 7,
    rackId: 'r1',
  };

  it('writes ConsumerProtocolSubscription v3 field by field', () => {
    expect(encodeSubscription(subscription).toString('hex')).toBe(
      [
        '0003', // version
        '00000002',
        `0001${str('a')}`,
        `0001${str('b')}`, // topics
        '00000003010203', // userData
        '00000001',
        `0001${str('a')}`,
        '00000002',
        '00000000',
        '00000002', // owned partitions
        '00000007', // generation
        `0002${str('r1')}`, // rack
      ].join(''),
    );
  });

  it('round-trips subscriptions of every version, and reads v0 without the later fields', () => {
    expect(decodeSubscription(encodeSubscription(subscription))).toEqual({ ...subscription, version: 3 });
    expect(decodeSubscription(encodeSubscription(subscription, 0))).toEqual({
      version: 0,
      topics: ['a', 'b'],
      userData: Buffer.from([1, 2, 3]),
      ownedPartitions: [],
      generationId: -1,
      rackId: null,
    });
    expect(decodeSubscription(encodeSubscription(subscription, 2)).generationId).toBe(7);
  });

  it('is read by kafkajs, and reads kafkajs', () => {
    const read = AssignerProtocol.MemberMetadata.decode(encodeSubscription(subscription));
    expect(read).toEqual({ version: 3, topics: ['a', 'b'], userData: Buffer.from([1, 2, 3]) });
    const written = AssignerProtocol.MemberAssignment.encode({
      version: 1,
      assignment: { t: [0, 1] },
      userData: Buffer.from('x'),
    });
    expect(decodeAssignment(written)).toEqual({
      version: 1,
      partitions: [{ topic: 't', partitions: [0, 1] }],
      userData: Buffer.from('x'),
    });
  });

  it('writes ConsumerProtocolAssignment and reads an empty one as no partitions', () => {
    const bytes = encodeAssignment({ partitions: [{ topic: 't', partitions: [0, 1] }], userData: null });
    expect(bytes).toEqual(hex(`0003 00000001 0001${str('t')} 00000002 00000000 00000001 ffffffff`));
    expect(decodeAssignment(bytes)).toEqual({
      version: 3,
      partitions: [{ topic: 't', partitions: [0, 1] }],
      userData: null,
    });
    expect(decodeAssignment(Buffer.alloc(0))).toEqual({ version: 0, partitions: [], userData: null });
  });
});

describe('group requests (flexible versions)', () => {
  it('writes JoinGroup v9 with the instance id and the reason, and v6 without the reason', () => {
    const request = {
      groupId: 'g',
      sessionTimeoutMs: 45_000,
      rebalanceTimeoutMs: 300_000,
      memberId: '',
      groupInstanceId: 'i',
      protocolType: 'consumer',
      protocols: [{ name: 's', metadata: Buffer.from([9]) }],
      reason: 'r',
    };
    const common = `00 02${str('g')} 0000afc8 000493e0 01 02${str('i')} 09${str('consumer')} 02 02${str('s')} 0209 00`;
    expect(encodeJoinGroup(request, 9)).toEqual(hex(`${common} 02${str('r')} 00`));
    expect(encodeJoinGroup(request, 6)).toEqual(hex(`${common} 00`));
  });

  it('reads a JoinGroup v9 response with skip_assignment and members', () => {
    const bytes = hex(
      `00 00000000 0000 0000000c 09${str('consumer')} 07${str('stream')} 03${str('m1')} 01 03${str('m1')}` +
        ` 03 03${str('m1')} 03${str('i1')} 0201 00 03${str('m2')} 00 01 00 00`,
    );
    expect(decodeJoinGroup(bytes, 9)).toEqual({
      throttleTimeMs: 0,
      errorCode: 0,
      generationId: 12,
      protocolType: 'consumer',
      protocolName: 'stream',
      leader: 'm1',
      skipAssignment: true,
      memberId: 'm1',
      members: [
        { memberId: 'm1', groupInstanceId: 'i1', metadata: Buffer.from([1]) },
        { memberId: 'm2', groupInstanceId: null, metadata: Buffer.alloc(0) },
      ],
    });
  });

  it('writes SyncGroup v5 and reads its response', () => {
    const request = {
      groupId: 'g',
      generationId: 3,
      memberId: 'm',
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: 'stream',
      assignments: [{ memberId: 'm', assignment: Buffer.from([7, 8]) }],
    };
    const head = `00 02${str('g')} 00000003 02${str('m')} 00`;
    const tail = `02 02${str('m')} 030708 00 00`;
    expect(encodeSyncGroup(request, 5)).toEqual(
      hex(`${head} 09${str('consumer')} 07${str('stream')} ${tail}`),
    );
    expect(encodeSyncGroup(request, 4)).toEqual(hex(`${head} ${tail}`));
    expect(
      decodeSyncGroup(hex(`00 00000000 0000 09${str('consumer')} 07${str('stream')} 030708 00`), 5),
    ).toEqual({
      throttleTimeMs: 0,
      errorCode: 0,
      protocolType: 'consumer',
      protocolName: 'stream',
      assignment: Buffer.from([7, 8]),
    });
    expect(decodeSyncGroup(hex('00 00000000 001b 01 00'), 4).errorCode).toBe(27);
  });

  it('writes Heartbeat v4 and LeaveGroup v5, and reads their responses', () => {
    const hb = { groupId: 'g', generationId: 5, memberId: 'm', groupInstanceId: null };
    expect(encodeHeartbeat(hb, 4)).toEqual(hex(`00 02${str('g')} 00000005 02${str('m')} 00 00`));
    expect(decodeHeartbeat(hex('00 00000000 0052 00'), 4)).toEqual({ throttleTimeMs: 0, errorCode: 82 });
    const leave = { groupId: 'g', members: [{ memberId: 'm', groupInstanceId: 'i', reason: 'bye' }] };
    expect(encodeLeaveGroup(leave, 5)).toEqual(
      hex(`00 02${str('g')} 02 02${str('m')} 02${str('i')} 04${str('bye')} 00 00`),
    );
    expect(encodeLeaveGroup(leave, 4)).toEqual(hex(`00 02${str('g')} 02 02${str('m')} 02${str('i')} 00 00`));
    expect(decodeLeaveGroup(hex(`00 00000000 0000 02 02${str('m')} 02${str('i')} 0019 00 00`), 5)).toEqual({
      throttleTimeMs: 0,
      errorCode: 0,
      members: [{ memberId: 'm', groupInstanceId: 'i', errorCode: 25 }],
    });
  });

  it('picks the highest version both speak, and names the broker that is too old', () => {
    expect(negotiate('JoinGroup', 9, 'b:9092')).toBe(9);
    expect(negotiate('JoinGroup', 12, 'b:9092')).toBe(9);
    expect(negotiate('LeaveGroup', 4, 'b:9092')).toBe(4);
    expect(() => negotiate('JoinGroup', 5, 'b:9092')).toThrow(
      /group coordinator b:9092 speaks JoinGroup up to v5; kstreams' group membership needs JoinGroup v6 or newer.*Upgrade the brokers/,
    );
    expect(() => negotiate('Heartbeat', undefined, 'b:9092')).toThrow(/does not support Heartbeat/);
  });
});
