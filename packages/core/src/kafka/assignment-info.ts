// What the leader puts into each member's assignment userData (Kafka Streams' AssignmentInfo).
// Version 1 (kafka/assignor.ts) is `{"tasks": [...]}`, the member's active tasks; version 2 adds
// its standby tasks (warm-ups included: a member runs both alike) and, when the high-availability
// assignor wants a probing rebalance, the time the member rejoins to trigger it (Kafka Streams'
// nextScheduledRebalanceMs). JSON, like the subscription's userData (subscription-info.ts).
// `errorCode` is Java's AssignorError code (Java's AssignmentInfo carries it from its version 4):
// absent means 0, NONE; the leader sets it instead of tasks, e.g. SHUTDOWN_REQUESTED
// (membership/shutdown-request.ts). It is read in every version: main (2026-12-06) wrote the
// shutdown refusal as a v1 document, `{"tasks": [], "errorCode": 2}`.

export const ASSIGNMENT_INFO_VERSION = 2;

export interface AssignmentInfo {
  version: number;
  /** The member's active tasks. */
  activeTasks: string[];
  /** The member's standby tasks (standbys and warm-ups). */
  standbyTasks: string[];
  /** Epoch ms at which to rejoin for a probing rebalance; absent: none scheduled. */
  nextRebalanceMs?: number | undefined;
  /** Java's AssignorError code: 0 (NONE) for an ordinary assignment. */
  errorCode: number;
}

export class AssignmentInfoError extends Error {
  override name = 'AssignmentInfoError';
}

export function encodeAssignmentInfo(
  info: Omit<AssignmentInfo, 'version' | 'errorCode'> & { errorCode?: number },
): Buffer {
  return Buffer.from(
    JSON.stringify({
      version: ASSIGNMENT_INFO_VERSION,
      // v1's field name: a v1 reader still finds the active tasks.
      tasks: info.activeTasks,
      standbyTasks: info.standbyTasks,
      nextRebalanceMs: info.nextRebalanceMs,
      // Written only when set: an ordinary assignment's bytes stay as before the field.
      errorCode: info.errorCode === 0 ? undefined : info.errorCode,
    }),
  );
}

/** Any version; an empty userData is an assignment without tasks (the coordinator's empty answer). */
export function decodeAssignmentInfo(buf: Buffer | null | undefined): AssignmentInfo {
  if (!buf || buf.length === 0) return { version: 1, activeTasks: [], standbyTasks: [], errorCode: 0 };
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(buf.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new AssignmentInfoError(
      `assignment userData is not kstreams' JSON (${buf.length} bytes): is another client's assignor in this group?`,
    );
  }
  const version = typeof doc.version === 'number' ? doc.version : 1;
  const list = (field: string): string[] => {
    const value = doc[field] ?? [];
    if (!Array.isArray(value) || !value.every((t) => typeof t === 'string'))
      throw new AssignmentInfoError(`assignment info v${version}: "${field}" must be a list of task ids`);
    return value;
  };
  const next = doc.nextRebalanceMs;
  if (next !== undefined && (typeof next !== 'number' || !Number.isSafeInteger(next) || next < 0))
    throw new AssignmentInfoError(
      `assignment info v${version}: "nextRebalanceMs" must be epoch ms, got ${JSON.stringify(next)}`,
    );
  const errorCode = doc.errorCode ?? 0;
  if (typeof errorCode !== 'number' || !Number.isInteger(errorCode) || errorCode < 0)
    throw new AssignmentInfoError(
      `assignment info v${version}: "errorCode" must be an AssignorError code (a whole number >= 0), got ${JSON.stringify(errorCode)}`,
    );
  return {
    version,
    activeTasks: list('tasks'),
    standbyTasks: version >= 2 ? list('standbyTasks') : [],
    ...(next === undefined ? {} : { nextRebalanceMs: next }),
    errorCode,
  };
}
