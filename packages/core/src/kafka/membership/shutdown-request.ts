// Kafka Streams' SHUTDOWN_APPLICATION reaches every instance through the group: the instance whose
// uncaught exception handler asked for it rejoins with a flag in its subscription's userData, and
// the leader, seeing the flag, gives every member an empty assignment carrying an error code
// (Java's AssignorError.SHUTDOWN_REQUESTED, 2) instead of tasks. Each member that receives that code
// stops, going to ERROR as the requesting instance does.
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
        userData: Buffer.from(JSON.stringify({ tasks: [], errorCode: SHUTDOWN_REQUESTED })),
      };
      return new Map(members.map((m) => [m.memberId, refusal]));
    },
  };
}

/** The assignment's error code (0: none); the runtime's assignment userData is JSON. */
export function assignmentErrorCode(userData: Buffer | null): number {
  if (userData === null || userData.length === 0) return 0;
  try {
    const code = (JSON.parse(userData.toString('utf8')) as { errorCode?: unknown }).errorCode;
    return typeof code === 'number' ? code : 0;
  } catch {
    return 0;
  }
}
