// Kafka Streams' SHUTDOWN_APPLICATION reaches every instance through the group: the instance whose
// uncaught exception handler asked for it rejoins with a flag in its subscription's userData, and
// the leader, seeing the flag, gives every member an empty assignment carrying an error code
// (Java's AssignorError.SHUTDOWN_REQUESTED, 2) instead of tasks. Each member that receives that code
// stops, going to ERROR as the requesting instance does.
import { AssignmentInfoError, decodeAssignmentInfo, encodeAssignmentInfo } from '../assignment-info.ts';
import type { Assignment } from './consumer-protocol.ts';
import type { GroupAssignor, JoinedMember } from './group-member.ts';

/** Java's AssignorError.SHUTDOWN_REQUESTED. */
export const SHUTDOWN_REQUESTED = 2;

/** The leader's assignment when any member asked for the application's shutdown. */
export function withShutdownRequests(
  assignor: GroupAssignor,
  requested: (member: JoinedMember) => boolean,
): GroupAssignor {
  return {
    name: assignor.name,
    assign(members, partitionCount) {
      if (!members.some(requested)) return assignor.assign(members, partitionCount);
      const refusal: Assignment = {
        partitions: [],
        userData: encodeAssignmentInfo({ activeTasks: [], standbyTasks: [], errorCode: SHUTDOWN_REQUESTED }),
      };
      return new Map(members.map((m) => [m.memberId, refusal]));
    },
  };
}

/**
 * The assignment's error code (0: none), from its assignment info. An undecodable userData reads
 * as 0, as before the decoder held the code: the error code only stops the instance, and the
 * tasks themselves come from the assigned partitions, so such a userData stops nothing here.
 */
export function assignmentErrorCode(userData: Buffer | null): number {
  try {
    return decodeAssignmentInfo(userData).errorCode;
  } catch (error) {
    if (error instanceof AssignmentInfoError) return 0;
    throw error;
  }
}
