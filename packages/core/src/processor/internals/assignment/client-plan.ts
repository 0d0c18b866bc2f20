// The assignment under construction of the high-availability assignor: per client (one instance,
// Kafka Streams' process), its active, standby and warm-up tasks, and the loads and lags the
// assignor decides with (Kafka Streams' ClientState). One task is never twice on one client.
import { parseTaskId } from './sticky-task-assignor.ts';
import { isCaughtUp, lagRank, type TaskLag } from './task-lags.ts';

/** One instance of the application as the assignor sees it (all its members together). */
export interface AssignorClient {
  /** Kafka Streams' process id: the instance, whatever number of members (threads) it has. */
  processId: string;
  /** How many tasks it takes relative to the others: its number of members (threads); default 1. */
  capacity?: number;
  /** The tasks it ran as active before this rebalance. */
  previousActive: readonly string[];
  /** The tasks it kept a standby (or warm-up) copy of before this rebalance. */
  previousStandby?: readonly string[];
  /** Per stateful task, how far behind its copy of the state is; a task it holds no state of is absent. */
  lags: ReadonlyMap<string, TaskLag>;
}

export type CopyKind = 'active' | 'standby' | 'warmup';

interface ClientSlots {
  readonly id: string;
  readonly capacity: number;
  readonly active: Set<string>;
  readonly standby: Set<string>;
  readonly warmup: Set<string>;
}

export class ClientPlan {
  /** Sorted by process id: every choice the assignor makes is deterministic. */
  readonly ids: string[];
  private readonly slots = new Map<string, ClientSlots>();
  private readonly inputs = new Map<string, AssignorClient>();

  constructor(
    clients: readonly AssignorClient[],
    private readonly acceptableRecoveryLag: number,
  ) {
    for (const c of clients) {
      if (this.inputs.has(c.processId))
        throw new Error(
          `two clients with process id ${c.processId}: group the members of one instance first`,
        );
      const capacity = c.capacity ?? 1;
      if (!Number.isInteger(capacity) || capacity < 1)
        throw new Error(`client ${c.processId}: capacity ${capacity} must be an integer >= 1 (its members)`);
      this.inputs.set(c.processId, c);
      this.slots.set(c.processId, {
        id: c.processId,
        capacity,
        active: new Set(),
        standby: new Set(),
        warmup: new Set(),
      });
    }
    this.ids = [...this.slots.keys()].sort();
  }

  private slot(client: string): ClientSlots {
    return this.slots.get(client)!;
  }

  tasks(client: string, kind: CopyKind): Set<string> {
    return this.slot(client)[kind];
  }

  assign(client: string, task: string, kind: CopyKind): void {
    if (this.has(client, task))
      throw new Error(`task ${task} is already on client ${client}: assignor bug (two copies on one client)`);
    this.slot(client)[kind].add(task);
  }

  unassign(client: string, task: string, kind: CopyKind): void {
    this.slot(client)[kind].delete(task);
  }

  /** Any copy of the task, active, standby or warm-up. */
  has(client: string, task: string): boolean {
    const s = this.slot(client);
    return s.active.has(task) || s.standby.has(task) || s.warmup.has(task);
  }

  capacity(client: string): number {
    return this.slot(client).capacity;
  }

  count(client: string, kinds: readonly CopyKind[]): number {
    const s = this.slot(client);
    return kinds.reduce((n, kind) => n + s[kind].size, 0);
  }

  /** Tasks per member: Kafka Streams balances load, so an instance with more threads takes more. */
  load(client: string, kinds: readonly CopyKind[]): number {
    return this.count(client, kinds) / this.capacity(client);
  }

  lag(client: string, task: string): TaskLag | undefined {
    return this.inputs.get(client)!.lags.get(task);
  }

  rank(client: string, task: string): number {
    return lagRank(this.lag(client, task));
  }

  caughtUp(client: string, task: string): boolean {
    return isCaughtUp(this.lag(client, task), this.acceptableRecoveryLag);
  }

  previouslyActive(client: string, task: string): boolean {
    return this.inputs.get(client)!.previousActive.includes(task);
  }

  previouslyStandby(client: string, task: string): boolean {
    return this.inputs.get(client)!.previousStandby?.includes(task) ?? false;
  }

  /** The clients in order of how caught up they are on the task; ties by process id. */
  byLag(task: string): string[] {
    return [...this.ids].sort((a, b) => this.rank(a, task) - this.rank(b, task) || a.localeCompare(b));
  }

  /** The least loaded (all copies) of the clients that pass `allowed`; ties by process id. */
  leastLoaded(candidates: readonly string[], allowed: (client: string) => boolean): string | undefined {
    let best: string | undefined;
    for (const c of candidates) {
      if (!allowed(c)) continue;
      if (best === undefined || this.load(c, ALL) < this.load(best, ALL)) best = c;
    }
    return best;
  }

  /**
   * Kafka Streams' rule for a balancing move: only if `source` is more loaded than `destination`
   * and the move shrinks the difference without turning it around.
   */
  shouldMove(source: string, destination: string, kinds: readonly CopyKind[]): boolean {
    const skew = this.load(source, kinds) - this.load(destination, kinds);
    if (skew <= 0) return false;
    const proposed =
      (this.count(source, kinds) - 1) / this.capacity(source) -
      (this.count(destination, kinds) + 1) / this.capacity(destination);
    return proposed >= 0 && proposed < skew;
  }
}

export const ALL: readonly CopyKind[] = ['active', 'standby', 'warmup'];

/** Task ids `<subtopology>_<partition>` in Kafka Streams' TaskId order. */
export function compareTaskIds(a: string, b: string): number {
  const [[sa, pa], [sb, pb]] = [parseTaskId(a), parseTaskId(b)];
  return sa - sb || pa - pb || a.localeCompare(b);
}
