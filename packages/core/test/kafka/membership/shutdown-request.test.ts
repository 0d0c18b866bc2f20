// The leader's side of SHUTDOWN_APPLICATION, without a broker.
import { describe, expect, it } from 'vitest';
import { ASSIGNMENT_INFO_VERSION, decodeAssignmentInfo } from '../../../src/kafka/assignment-info.ts';
import { decodeUserData, encodeUserData } from '../../../src/kafka/assignor.ts';
import type { GroupAssignor, JoinedMember } from '../../../src/kafka/membership/group-member.ts';
import {
  assignmentErrorCode,
  SHUTDOWN_REQUESTED,
  withShutdownRequests,
} from '../../../src/kafka/membership/shutdown-request.ts';

const member = (memberId: string, shutdownRequested?: boolean): JoinedMember => ({
  memberId,
  groupInstanceId: null,
  subscription: {
    topics: ['in'],
    userData: encodeUserData({ ownedTasks: [], ...(shutdownRequested ? { shutdownRequested } : {}) }),
    ownedPartitions: [],
    generationId: 1,
    rackId: null,
  },
});

const inner: GroupAssignor = {
  name: 'stream',
  assign: (members) =>
    new Map(
      members.map((m, i) => [m.memberId, { partitions: [{ topic: 'in', partitions: [i] }], userData: null }]),
    ),
};
const assignor = withShutdownRequests(
  inner,
  (m) => decodeUserData(m.subscription.userData).shutdownRequested === true,
);

describe('SHUTDOWN_APPLICATION through the group', () => {
  it('assigns as usual while no member asks for the shutdown', async () => {
    const plan = await assignor.assign([member('a'), member('b')], () => 2);
    expect([...plan.values()].map((a) => a.partitions)).toEqual([
      [{ topic: 'in', partitions: [0] }],
      [{ topic: 'in', partitions: [1] }],
    ]);
    expect(assignmentErrorCode(plan.get('a')!.userData)).toBe(0);
  });

  it("gives every member an empty assignment with Java's SHUTDOWN_REQUESTED code once one asks", async () => {
    const plan = await assignor.assign([member('a'), member('b', true), member('c')], () => 3);
    expect([...plan.keys()]).toEqual(['a', 'b', 'c']);
    for (const assignment of plan.values()) {
      expect(assignment.partitions).toEqual([]);
      expect(assignmentErrorCode(assignment.userData)).toBe(SHUTDOWN_REQUESTED);
      expect(decodeAssignmentInfo(assignment.userData)).toEqual({
        version: ASSIGNMENT_INFO_VERSION,
        activeTasks: [],
        standbyTasks: [],
        errorCode: SHUTDOWN_REQUESTED,
      });
    }
    expect(SHUTDOWN_REQUESTED).toBe(2);
  });

  it('reads the request from the userData, and no error code from userData without one', () => {
    expect(decodeUserData(encodeUserData({ ownedTasks: ['0_1'], shutdownRequested: true }))).toEqual({
      ownedTasks: ['0_1'],
      applicationServer: undefined,
      shutdownRequested: true,
    });
    expect(decodeUserData(encodeUserData({ ownedTasks: [] })).shutdownRequested).toBeUndefined();
    expect(assignmentErrorCode(null)).toBe(0);
    expect(assignmentErrorCode(Buffer.from('not json'))).toBe(0);
    expect(assignmentErrorCode(Buffer.from('{"tasks":[]}'))).toBe(0);
    // Read by the assignment info decoder: a v1 document with the code, and a malformed code as none.
    expect(assignmentErrorCode(Buffer.from('{"tasks":[],"errorCode":2}'))).toBe(SHUTDOWN_REQUESTED);
    expect(assignmentErrorCode(Buffer.from('{"tasks":[],"errorCode":"2"}'))).toBe(0);
  });
});
