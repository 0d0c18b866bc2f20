// What the group coordinator's error codes mean for a member, and the errors a member raises. The
// errors carry kafkajs' `type` names (error-kinds.ts looks for them through cause chains), and the
// fatal ones say what to change.
import { errorCodes } from '../kafkajs-protocol.ts';

/** kafkajs' name of an error code (e.g. 27 -> REBALANCE_IN_PROGRESS). */
export function errorType(code: number): string {
  return errorCodes.find((e) => e.code === code)?.type ?? `ERROR_CODE_${code}`;
}

export const CODES = {
  NONE: 0,
  COORDINATOR_LOAD_IN_PROGRESS: 14,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  ILLEGAL_GENERATION: 22,
  UNKNOWN_MEMBER_ID: 25,
  REBALANCE_IN_PROGRESS: 27,
  MEMBER_ID_REQUIRED: 79,
  FENCED_INSTANCE_ID: 82,
} as const;

/** The coordinator moved or is loading the group: find it again and retry. */
export const COORDINATOR_MOVED: ReadonlySet<number> = new Set([
  CODES.COORDINATOR_LOAD_IN_PROGRESS,
  CODES.COORDINATOR_NOT_AVAILABLE,
  CODES.NOT_COORDINATOR,
]);

/** An error of the group protocol: `type` is kafkajs' name of the code. */
export class GroupMembershipError extends Error {
  readonly type: string;
  readonly retriable: boolean;
  constructor(type: string, message: string, retriable = false) {
    super(message);
    this.name = 'GroupMembershipError';
    this.type = type;
    this.retriable = retriable;
  }
}

export function groupError(api: string, code: number, groupId: string): GroupMembershipError {
  const type = errorType(code);
  const known = errorCodes.find((e) => e.code === code);
  return new GroupMembershipError(
    type,
    `${api} for group '${groupId}' failed: ${type}${known ? ` (${known.message})` : ''}`,
    known?.retriable ?? false,
  );
}

/**
 * FENCED_INSTANCE_ID: the coordinator gave this group.instance.id to a member that joined after
 * this one, so another live instance runs with the same id (KIP-345). Fatal: the two would take
 * each other's tasks in turns.
 */
export function fencedInstanceError(groupId: string, groupInstanceId: string): GroupMembershipError {
  return new GroupMembershipError(
    'FENCED_INSTANCE_ID',
    `another live member of group '${groupId}' uses groupInstanceId '${groupInstanceId}', and the ` +
      'group coordinator now counts it as that instance: this one is fenced and stops. Give every ' +
      'instance its own groupInstanceId (e.g. from the host or pod name), or start the same id only ' +
      'after the old instance has stopped.',
  );
}

/** The coordinator cannot speak a version this member needs. */
export function brokerTooOldError(
  api: string,
  brokerMax: number | undefined,
  needed: number,
  broker: string,
): GroupMembershipError {
  const has = brokerMax === undefined ? `does not support ${api}` : `speaks ${api} up to v${brokerMax}`;
  return new GroupMembershipError(
    'UNSUPPORTED_VERSION',
    `the group coordinator ${broker} ${has}; kstreams' group membership needs ${api} v${needed} or ` +
      'newer (static membership and flexible versions: Apache Kafka 2.4 or newer). Upgrade the brokers.',
  );
}

/**
 * UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION after the member went quiet: the coordinator removed it
 * (its session expired, or it did not rejoin a rebalance within the rebalance timeout), and its
 * partitions may be another member's now (Java's CommitFailedException says the same).
 */
export function removedFromGroupError(
  groupId: string,
  cause: string,
  sinceLastPollMs: number | undefined,
  maxPollIntervalMs: number,
): GroupMembershipError {
  const slow =
    sinceLastPollMs !== undefined && sinceLastPollMs > maxPollIntervalMs
      ? ` The stream thread's last poll was ${sinceLastPollMs} ms ago, longer than consumer.rebalanceTimeoutMs ` +
        `(${maxPollIntervalMs} ms, which kstreams uses as Java's max.poll.interval.ms): one section of the ` +
        'thread (a batch, a commit, a punctuation) took too long. Raise consumer.rebalanceTimeoutMs, or ' +
        'make that work shorter.'
      : '';
  return new GroupMembershipError(
    cause,
    `the group coordinator removed this member from group '${groupId}' (${cause}): it missed its session ` +
      `timeout or did not rejoin a rebalance within the rebalance timeout. Its partitions may belong to ` +
      `another member now; it rejoins as a new member.${slow}`,
    true,
  );
}
