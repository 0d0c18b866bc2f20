// The member's side of KIP-441's probing rebalance: the leader put `nextRebalanceMs` into one
// member's assignment info (high-availability-assignor.ts); that member rejoins then, so that the
// leader sees whether the warm-ups have caught up and moves their tasks. Every new assignment
// replaces the schedule: a rebalance in between already probed, or scheduled anew.
import type { AssignmentInfo } from '../assignment-info.ts';

export class ProbingRebalance {
  private timer?: NodeJS.Timeout;
  /** Epoch ms of the scheduled rejoin; undefined when none is. */
  scheduledAt?: number | undefined;

  constructor(
    private readonly rejoin: (reason: string) => unknown,
    private readonly now: () => number = Date.now,
  ) {}

  /** Call with each assignment's info (GroupMember's onPartitionsAssigned). */
  onAssignment(info: Pick<AssignmentInfo, 'nextRebalanceMs'>): void {
    this.cancel();
    const at = info.nextRebalanceMs;
    if (at === undefined) return;
    this.scheduledAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.scheduledAt = undefined;
        this.rejoin('probing rebalance: warm-up replicas may have caught up');
      },
      Math.max(0, at - this.now()),
    );
    // A scheduled probe never keeps the process alive on its own.
    this.timer.unref();
  }

  /** On close (or when the member leaves the group). */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.scheduledAt = undefined;
  }
}
