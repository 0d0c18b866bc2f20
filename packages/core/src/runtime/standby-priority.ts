// Actives first (issue 37): a stream thread feeds its standbys only while none of its active tasks
// is being created or restored, nor has started without committing yet (for at most a while).
// Kafka Streams' StreamThread likewise updated standbys only once its actives ran, and its state
// updater restores actives before standbys. Without this, the standbys a failover also assigns
// (new ones, restoring their whole changelog) held the thread's sections while the promoted
// actives waited to start and commit: 3.6-5.5 s from the assignment to the first commit with one
// standby, against 1.1-3.2 s with none (bench/results/standby-failover.md, 2026-12-06).

/** How long a started task's first commit is waited for: past it, standbys go on regardless. */
export function firstCommitWaitMs(commitIntervalMs: number): number {
  return Math.min(commitIntervalMs + 1_000, 5_000);
}

export class ActivesFirst {
  /** Started tasks not committed yet -> when they started. */
  private readonly awaiting = new Map<string, number>();

  constructor(
    private readonly maxWaitMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The task runs now: standbys wait for its first commit. */
  started(id: string): void {
    this.awaiting.set(id, this.now());
  }

  /** These tasks committed (or closed): no longer waited for. */
  committed(ids: Iterable<string>): void {
    for (const id of ids) this.awaiting.delete(id);
  }

  /** Whether standbys may be fed, with these tasks being created or restored. */
  standbysMayRun(creating: ReadonlySet<string>): boolean {
    if (creating.size > 0) return false;
    const now = this.now();
    for (const [id, at] of this.awaiting) if (now - at >= this.maxWaitMs) this.awaiting.delete(id);
    return this.awaiting.size === 0;
  }
}
