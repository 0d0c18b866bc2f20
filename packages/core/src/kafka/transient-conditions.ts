// kafkajs logs at ERROR every error answer it then retries itself, so an app on a fresh broker
// printed ERROR lines for conditions that pass within seconds (a coordinator loading, a leader
// being elected, a transaction's markers still being written). These go to debug; only a
// condition that lasts (seen again and again for `lastingMs`) is logged, at warn, once a while.

/** Kafka's self-resolving conditions, as kafkajs words them. */
const SELF_RESOLVING: ReadonlyArray<readonly [string, RegExp]> = [
  ['the coordinator is loading', /coordinator is loading/i],
  ['the coordinator is not available', /coordinator is not available/i],
  ['the coordinator moved', /not the correct coordinator/i],
  ['a partition leader moved', /not the leader for that topic-partition/i],
  ['a partition leader is being elected', /no leader for this topic-partition|leader was not available/i],
  ['a transaction is still completing', /concurrent operation on the same transaction/i],
  ['the group is rebalancing', /group is rebalancing/i],
  ['a new topic is not ready yet', /does not host this topic-partition/i],
  [
    'a broker does not answer',
    /ECONNREFUSED|Connection error|Connection timeout|disconnected before a response/i,
  ],
];

/** Which self-resolving condition a kafkajs log entry reports, if any. */
export function selfResolvingCondition(message: string, fields: Record<string, unknown>): string | undefined {
  const text = `${message} ${typeof fields.error === 'string' ? fields.error : ''}`;
  for (const [name, pattern] of SELF_RESOLVING) if (pattern.test(text)) return name;
  return undefined;
}

export interface TransientConditionOptions {
  /** Seen without a gap longer than `gapMs` for this long: the condition lasts. */
  lastingMs?: number;
  gapMs?: number;
  /** At most one warning per condition this often. */
  warnEveryMs?: number;
  now?: () => number;
}

/** Per condition: since when it has been seen without a pause. Decides debug or warn. */
export class TransientConditions {
  private readonly since = new Map<string, { first: number; last: number; warned: number }>();
  private readonly lastingMs: number;
  private readonly gapMs: number;
  private readonly warnEveryMs: number;
  private readonly now: () => number;

  constructor(options: TransientConditionOptions = {}) {
    this.lastingMs = options.lastingMs ?? 30_000;
    this.gapMs = options.gapMs ?? 10_000;
    this.warnEveryMs = options.warnEveryMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** 'warn' with how long the condition has lasted, or 'debug'. */
  seen(condition: string): { level: 'debug' } | { level: 'warn'; lastedMs: number } {
    const now = this.now();
    let entry = this.since.get(condition);
    if (entry === undefined || now - entry.last > this.gapMs) {
      entry = { first: now, last: now, warned: Number.NEGATIVE_INFINITY };
      this.since.set(condition, entry);
    }
    entry.last = now;
    const lastedMs = now - entry.first;
    if (lastedMs < this.lastingMs || now - entry.warned < this.warnEveryMs) return { level: 'debug' };
    entry.warned = now;
    return { level: 'warn', lastedMs };
  }
}
