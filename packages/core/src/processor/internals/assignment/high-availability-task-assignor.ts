// The high-availability task assignor (KIP-441, Kafka Streams' HighAvailabilityTaskAssignor): which
// instance runs each task as active, which keep standby copies of its state, and where warm-up
// replicas restore a task's state before it moves there. Pure, so that it is tested without a
// broker; the group leader feeds it the members grouped by instance and their task lags
// (task-lags.ts, from kafka/subscription-info.ts).
import { ALL, type AssignorClient, ClientPlan, compareTaskIds } from './client-plan.ts';
import { parseTaskId } from './sticky-task-assignor.ts';
import type { TaskChangelogs } from './task-lags.ts';
import { balance, moveActivesToCaughtUpClients, moveStandbysToCaughtUpClients } from './task-movements.ts';

export type { AssignorClient } from './client-plan.ts';

export interface HighAvailabilityConfig {
  /** Standby copies of each stateful task, each on another instance than its active (Kafka Streams' num.standby.replicas). */
  numStandbyReplicas: number;
  /** Records behind the changelog end that still count as caught up (acceptable.recovery.lag, 10,000). */
  acceptableRecoveryLag: number;
  /** Warm-up replicas in the whole assignment at once (max.warmup.replicas, 2). */
  maxWarmupReplicas: number;
}

export const DEFAULT_ACCEPTABLE_RECOVERY_LAG = 10_000;
export const DEFAULT_MAX_WARMUP_REPLICAS = 2;

export interface ClientTasks {
  active: string[];
  /** Standby replicas: follow the changelogs so that the task can fail over here with little to restore. */
  standby: string[];
  /** Warm-up replicas: standbys beyond numStandbyReplicas, where the task moves once they are caught up. */
  warmup: string[];
}

export interface HighAvailabilityAssignment {
  clients: Map<string, ClientTasks>;
  /** A task waits for a warm-up (or for one to be possible): rebalance again after probingRebalanceIntervalMs. */
  probingRebalanceNeeded: boolean;
}

/**
 * Kafka Streams' high-availability assignment, in its order:
 * 1. stateful actives, balanced over the instances by capacity and sticky (a task stays with its
 *    previous active owner as far as balance allows; Kafka Streams starts from a round robin here);
 * 2. `numStandbyReplicas` standbys per stateful task, never on an instance with a copy already,
 *    sticky to the previous standby owners, balanced;
 * 3. a balanced target that is not caught up (more than `acceptableRecoveryLag` behind while another
 *    instance is ahead) does not get the active: a caught-up instance does (one with a standby swaps
 *    with the target), else the most caught-up one; the target gets a warm-up while
 *    `maxWarmupReplicas` lasts; likewise for standbys;
 * 4. stateless actives: to their previous owner up to its share, the rest to the least loaded.
 * A probing rebalance is needed when step 3 moved anything.
 */
export function assignHighAvailability(
  clients: readonly AssignorClient[],
  tasks: readonly TaskChangelogs[],
  config: HighAvailabilityConfig,
): HighAvailabilityAssignment {
  checkConfig(config);
  const plan = new ClientPlan(clients, config.acceptableRecoveryLag);
  const stateful = tasks
    .filter((t) => t.changelogs.length > 0)
    .map((t) => t.id)
    .sort(compareTaskIds);
  const stateless = tasks
    .filter((t) => t.changelogs.length === 0)
    .map((t) => t.id)
    .sort(compareTaskIds);
  if (plan.ids.length === 0) return { clients: new Map(), probingRebalanceNeeded: false };

  assignStatefulActives(plan, stateful);
  assignStandbys(plan, stateful, config.numStandbyReplicas);
  const budget = { remaining: config.maxWarmupReplicas };
  const activeMoves = moveActivesToCaughtUpClients(plan, stateful, budget);
  const standbyMoves = moveStandbysToCaughtUpClients(plan, stateful, budget);
  assignStatelessActives(plan, stateless);

  const result = new Map<string, ClientTasks>();
  for (const id of plan.ids) {
    const sorted = (kind: 'active' | 'standby' | 'warmup') => [...plan.tasks(id, kind)].sort(compareTaskIds);
    result.set(id, { active: sorted('active'), standby: sorted('standby'), warmup: sorted('warmup') });
  }
  return { clients: result, probingRebalanceNeeded: activeMoves + standbyMoves > 0 };
}

function assignStatefulActives(plan: ClientPlan, tasks: readonly string[]): void {
  const unowned: string[] = [];
  for (const task of tasks) {
    // Two instances may both claim a task (one was a zombie): the more caught up keeps it.
    const owner = plan.byLag(task).find((c) => plan.previouslyActive(c, task));
    if (owner === undefined) unowned.push(task);
    else plan.assign(owner, task, 'active');
  }
  for (const task of unowned) {
    const target = [...plan.ids].sort(
      (a, b) =>
        (plan.count(a, ['active']) + 1) / plan.capacity(a) -
          (plan.count(b, ['active']) + 1) / plan.capacity(b) ||
        plan.rank(a, task) - plan.rank(b, task) ||
        a.localeCompare(b),
    )[0]!;
    plan.assign(target, task, 'active');
  }
  balance(plan, 'active', ['active']);
}

function assignStandbys(plan: ClientPlan, tasks: readonly string[], replicas: number): void {
  if (replicas === 0) return;
  for (const task of tasks) {
    let placed = 0;
    // Sticky: the instances that kept a copy keep it, the most caught up first.
    for (const client of plan.byLag(task)) {
      if (placed === replicas) break;
      if (plan.previouslyStandby(client, task) && !plan.has(client, task)) {
        plan.assign(client, task, 'standby');
        placed++;
      }
    }
    while (placed < replicas) {
      // More replicas than other instances: each instance holds one copy at most, the rest are not placed.
      const target = plan.leastLoaded(
        [...plan.ids].sort((a, b) => plan.rank(a, task) - plan.rank(b, task) || a.localeCompare(b)),
        (c) => !plan.has(c, task),
      );
      if (target === undefined) break;
      plan.assign(target, task, 'standby');
      placed++;
    }
  }
  balance(plan, 'standby', ALL);
}

function assignStatelessActives(plan: ClientPlan, tasks: readonly string[]): void {
  // Sticky first, within balance: a stateless task that moves is revoked and reassigned in two
  // rebalances (KIP-429), so it stays with its previous owner up to that one's lower share of all
  // actives (the floor: the least-loaded fill after it then keeps the spread within one task). (Kafka Streams hands stateless tasks to the least loaded clients whatever they
  // ran; on a scale-in that moved up to twice as many tasks as needed.)
  const totalCapacity = plan.ids.reduce((n, c) => n + plan.capacity(c), 0);
  const totalActives = plan.ids.reduce((n, c) => n + plan.count(c, ['active']), 0) + tasks.length;
  const share = (c: string) => Math.floor((totalActives * plan.capacity(c)) / totalCapacity);
  const rest: string[] = [];
  // Partition before sub-topology: what an owner keeps mixes the sub-topologies, so that the fill
  // below does not hand one member a whole sub-topology.
  for (const task of [...tasks].sort(byPartitionThenSubtopology)) {
    const owner = plan.ids.find((c) => plan.previouslyActive(c, task));
    if (owner !== undefined && plan.count(owner, ['active']) < share(owner))
      plan.assign(owner, task, 'active');
    else rest.push(task);
  }
  const ofSubtopology = (c: string, task: string) =>
    [...plan.tasks(c, 'active')].filter((t) => parseTaskId(t)[0] === parseTaskId(task)[0]).length;
  for (const task of rest.sort(compareTaskIds)) {
    const target = [...plan.ids].sort(
      (a, b) =>
        plan.load(a, ['active']) - plan.load(b, ['active']) ||
        Number(plan.previouslyActive(b, task)) - Number(plan.previouslyActive(a, task)) ||
        ofSubtopology(a, task) - ofSubtopology(b, task) ||
        a.localeCompare(b),
    )[0]!;
    plan.assign(target, task, 'active');
  }
}

function byPartitionThenSubtopology(a: string, b: string): number {
  const [[sa, pa], [sb, pb]] = [parseTaskId(a), parseTaskId(b)];
  return pa - pb || sa - sb;
}

function checkConfig(config: HighAvailabilityConfig): void {
  const check = (name: keyof HighAvailabilityConfig, value: number) => {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new Error(
        `${name} = ${value}: use an integer >= 0 (the assignor got a config that was not resolved)`,
      );
  };
  check('numStandbyReplicas', config.numStandbyReplicas);
  check('acceptableRecoveryLag', config.acceptableRecoveryLag);
  check('maxWarmupReplicas', config.maxWarmupReplicas);
}
