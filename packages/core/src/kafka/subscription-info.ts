// What a kstreams member puts into its subscription's userData for the leader (Kafka Streams'
// SubscriptionInfo): version 2 adds to today's JSON (kafka/assignor.ts: ownedTasks,
// applicationServer) the instance's process id and its task offset sums, from which the leader
// computes each instance's lag per task (KIP-441). Still JSON, so that a version-1 reader
// (decodeUserData) reads a version-2 member's ownedTasks and applicationServer unchanged; a reader
// takes the fields it knows of a newer version and ignores the rest, as Kafka's own readers do.
import type { AssignorClient } from '../processor/internals/assignment/client-plan.ts';
import {
  computeTaskLags,
  LATEST_OFFSET,
  saturatingSum,
  UNKNOWN_OFFSET_SUM,
} from '../processor/internals/assignment/task-lags.ts';
import { decodeUserData, type MemberUserData } from './assignor.ts';

export { LATEST_OFFSET, UNKNOWN_OFFSET_SUM };

/** The version this code writes; a version-1 userData has no `version` field. */
export const SUBSCRIPTION_INFO_VERSION = 2;

export interface SubscriptionInfo extends MemberUserData {
  /** The version the member wrote (1: before task offset sums). */
  version: number;
  /** Kafka Streams' processId: one per instance, shared by its members, so the leader groups them. */
  processId?: string | undefined;
  /**
   * Per task whose state the instance holds: the sum of its stores' changelog offsets (the next
   * offset to read of each, from the checkpoint or a standby's position); LATEST_OFFSET (-2) for a
   * task it runs as active; UNKNOWN_OFFSET_SUM (-3) for state of unknown position.
   */
  taskOffsetSums: Map<string, number>;
}

export class SubscriptionInfoError extends Error {
  override name = 'SubscriptionInfoError';
}

/** The sum a task reports for its changelog positions (next offsets to read). */
export function taskOffsetSum(positions: ReadonlyArray<{ offset: number }>): number {
  return saturatingSum(positions.map((p) => p.offset));
}

export function encodeSubscriptionInfo(info: Omit<SubscriptionInfo, 'version'>): Buffer {
  for (const [task, sum] of info.taskOffsetSums) checkOffsetSum(task, sum);
  return Buffer.from(
    JSON.stringify({
      version: SUBSCRIPTION_INFO_VERSION,
      ownedTasks: info.ownedTasks,
      applicationServer: info.applicationServer,
      processId: info.processId,
      taskOffsetSums: Object.fromEntries(info.taskOffsetSums),
      ...(info.shutdownRequested === true ? { shutdownRequested: true } : {}),
    }),
  );
}

/**
 * Any version. A version-1 member (no `version`) reports only the tasks it runs: each counts as
 * LATEST_OFFSET, as Kafka Streams reads a subscription older than its offset sums. Malformed
 * offset sums throw: they mean a broken member, which the leader should name in its log.
 */
export function decodeSubscriptionInfo(buf: Buffer | null | undefined): SubscriptionInfo {
  const base = decodeUserData(buf);
  const doc = parse(buf);
  const version = typeof doc?.version === 'number' ? doc.version : 1;
  const taskOffsetSums = new Map<string, number>();
  if (version < 2) {
    for (const task of base.ownedTasks) taskOffsetSums.set(task, LATEST_OFFSET);
    return { ...base, version, taskOffsetSums };
  }
  const sums = doc?.taskOffsetSums;
  if (sums !== undefined && (typeof sums !== 'object' || sums === null || Array.isArray(sums)))
    throw new SubscriptionInfoError(
      `subscription info v${version}: taskOffsetSums must be an object of task id to offset sum, got ${JSON.stringify(sums)}`,
    );
  for (const [task, sum] of Object.entries((sums ?? {}) as Record<string, unknown>)) {
    checkOffsetSum(task, sum);
    taskOffsetSums.set(task, sum);
  }
  const processId = typeof doc?.processId === 'string' ? doc.processId : undefined;
  return { ...base, version, processId, taskOffsetSums };
}

/** The tasks the member ran as active until this rebalance (Kafka Streams' prevActiveTasks). */
export function previousActiveTasks(info: SubscriptionInfo): string[] {
  return [...info.taskOffsetSums].filter(([, sum]) => sum === LATEST_OFFSET).map(([task]) => task);
}

/** The tasks whose state the member holds without running them (Kafka Streams' prevStandbyTasks). */
export function previousStandbyTasks(info: SubscriptionInfo): string[] {
  return [...info.taskOffsetSums].filter(([, sum]) => sum !== LATEST_OFFSET).map(([task]) => task);
}

/**
 * The leader's view for the high-availability assignor: members grouped by process id (a member
 * without one is an instance of its own), capacity = its members, and its lag per stateful task
 * from its offset sums and the changelogs' end offset sums. Members of one instance may both
 * report a task: running (LATEST_OFFSET) wins, then the higher offset sum.
 */
export function assignorClients(
  members: ReadonlyArray<{ memberId: string; info: SubscriptionInfo }>,
  endOffsetSums: ReadonlyMap<string, number>,
): { clients: AssignorClient[]; processOf: Map<string, string> } {
  const byProcess = new Map<string, { members: number; sums: Map<string, number> }>();
  const processOf = new Map<string, string>();
  for (const { memberId, info } of members) {
    const processId = info.processId ?? memberId;
    processOf.set(memberId, processId);
    const entry = byProcess.get(processId) ?? { members: 0, sums: new Map<string, number>() };
    entry.members++;
    for (const [task, sum] of info.taskOffsetSums) {
      const seen = entry.sums.get(task);
      if (seen === LATEST_OFFSET) continue;
      entry.sums.set(task, sum === LATEST_OFFSET || seen === undefined ? sum : Math.max(seen, sum));
    }
    byProcess.set(processId, entry);
  }
  const clients = [...byProcess].map(([processId, { members: capacity, sums }]) => {
    const info = { version: SUBSCRIPTION_INFO_VERSION, ownedTasks: [], taskOffsetSums: sums };
    return {
      processId,
      capacity,
      previousActive: previousActiveTasks(info),
      previousStandby: previousStandbyTasks(info),
      lags: computeTaskLags(sums, endOffsetSums),
    };
  });
  return { clients, processOf };
}

function parse(buf: Buffer | null | undefined): Record<string, unknown> | undefined {
  if (!buf || buf.length === 0) return undefined;
  try {
    const doc = JSON.parse(buf.toString('utf8')) as unknown;
    return typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function checkOffsetSum(task: string, sum: unknown): asserts sum is number {
  const ok =
    typeof sum === 'number' &&
    Number.isSafeInteger(sum) &&
    (sum >= 0 || sum === LATEST_OFFSET || sum === UNKNOWN_OFFSET_SUM);
  if (!ok)
    throw new SubscriptionInfoError(
      `task ${task}: offset sum ${JSON.stringify(sum)} is not an integer >= 0, ${LATEST_OFFSET} (running active) or ${UNKNOWN_OFFSET_SUM} (unknown)`,
    );
}
