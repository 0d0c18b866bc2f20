// kafkajs loses the broker's answer when it looks up a coordinator: a FindCoordinator refused for
// want of an ACL (a transactional id or a group the user may not Describe) ends as
// KafkaJSGroupCoordinatorNotFound with no cause, which reads as "retry" and would be retried for
// task.timeout.ms. kafkajs does log the refused response, so the client's log creator notes
// each authorization refusal here, and the runtime reads the cause back from it.

/** kafkajs' wording of the broker's authorization error codes. */
const MESSAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [/transactional id authorization failed/i, 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED'],
  [/group authorization failed/i, 'GROUP_AUTHORIZATION_FAILED'],
  [/topic authorization failed/i, 'TOPIC_AUTHORIZATION_FAILED'],
  [/cluster authorization failed/i, 'CLUSTER_AUTHORIZATION_FAILED'],
];

/** A refusal counts for a lookup that failed within this long of it (they are ms apart). */
const RECENT_MS = 5_000;

export class AuthorizationRefusals {
  private last?: { code: string; at: number };

  constructor(private readonly now: () => number = Date.now) {}

  /** Called with every kafkajs log entry's error text. */
  note(errorText: string): void {
    for (const [pattern, code] of MESSAGES) {
      if (pattern.test(errorText)) {
        this.last = { code, at: this.now() };
        return;
      }
    }
  }

  /**
   * The error with the refusal it stands for, when it is kafkajs' cause-less "coordinator not
   * found" and the broker refused this client an ACL just before; else the error as it is.
   */
  explain(error: unknown): unknown {
    const last = this.last;
    if (last === undefined || this.now() - last.at > RECENT_MS) return error;
    if (!coordinatorNotFound(error)) return error;
    const explained = new Error(`Failed to find a coordinator: the broker answered ${last.code}`, {
      cause: error,
    });
    return Object.assign(explained, { type: last.code, retriable: false });
  }
}

/** kafkajs' KafkaJSGroupCoordinatorNotFound, as it is or under its retry wrappers. */
function coordinatorNotFound(error: unknown): boolean {
  type Wrapped = { name?: string; cause?: unknown; originalError?: unknown };
  for (
    let e = error as Wrapped | undefined, depth = 0;
    e && depth < 10;
    e = (e.originalError ?? e.cause) as Wrapped, depth++
  )
    if (e.name === 'KafkaJSGroupCoordinatorNotFound') return true;
  return false;
}
