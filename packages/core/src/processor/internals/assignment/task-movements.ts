// KIP-441's movements: the balanced plan may put a task on a client whose copy of its state is far
// behind. Then the task stays (or goes) where its state is caught up and the balanced target gets
// a warm-up replica that restores in the background; a probing rebalance moves the task once the
// warm-up has caught up. Semantics of Kafka Streams' TaskMovement, written for kstreams.
import { type ClientPlan, type CopyKind, compareTaskIds } from './client-plan.ts';
import { parseTaskId } from './sticky-task-assignor.ts';

/** How many warm-up replicas the whole assignment may still hand out (maxWarmupReplicas). */
export interface WarmupBudget {
  remaining: number;
}

interface Movement {
  task: string;
  /** The balanced target, which is not caught up. */
  destination: string;
  caughtUpClients: number;
}

/**
 * The target is not caught up and another client is strictly more caught up: moving the task
 * there now would mean a restore while it does not process.
 */
function needsMovement(plan: ClientPlan, task: string, client: string): boolean {
  if (plan.caughtUp(client, task)) return false;
  const best = plan.byLag(task)[0]!;
  return plan.rank(best, task) < plan.rank(client, task);
}

/** Tasks with the fewest caught-up clients first: they have the fewest choices. */
function ordered(movements: Movement[]): Movement[] {
  return movements.sort((a, b) => a.caughtUpClients - b.caughtUpClients || compareTaskIds(a.task, b.task));
}

function caughtUpCount(plan: ClientPlan, task: string): number {
  return plan.ids.filter((c) => plan.caughtUp(c, task)).length;
}

/** The most caught-up client that passes `allowed`, strictly ahead of `destination`. */
function mostCaughtUp(
  plan: ClientPlan,
  task: string,
  destination: string,
  allowed: (client: string) => boolean,
): string | undefined {
  const floor = plan.rank(destination, task);
  return plan.byLag(task).find((c) => c !== destination && plan.rank(c, task) < floor && allowed(c));
}

function warmUpOrDrop(plan: ClientPlan, budget: WarmupBudget, task: string, destination: string): void {
  // Without budget the target gets nothing now: a later (probing) rebalance tries again.
  if (budget.remaining > 0) {
    budget.remaining--;
    plan.assign(destination, task, 'warmup');
  }
}

/**
 * Moves the actives whose balanced target is not caught up. Returns how many it moved (each is a
 * reason for a probing rebalance). Preference: a caught-up client that holds a standby (they swap:
 * the target keeps the standby), then any caught-up client (the target gets a warm-up), then the
 * most caught-up client.
 */
export function moveActivesToCaughtUpClients(
  plan: ClientPlan,
  tasks: readonly string[],
  budget: WarmupBudget,
): number {
  const movements: Movement[] = [];
  for (const client of plan.ids) {
    for (const task of plan.tasks(client, 'active')) {
      if (!tasks.includes(task) || !needsMovement(plan, task, client)) continue;
      movements.push({ task, destination: client, caughtUpClients: caughtUpCount(plan, task) });
    }
  }
  for (const { task, destination } of ordered(movements)) {
    const caughtUp = (c: string) => c !== destination && plan.caughtUp(c, task);
    const withStandby = plan.leastLoaded(plan.ids, (c) => caughtUp(c) && plan.tasks(c, 'standby').has(task));
    plan.unassign(destination, task, 'active');
    if (withStandby !== undefined) {
      swap(plan, task, withStandby, destination);
      continue;
    }
    const source = plan.leastLoaded(plan.ids, caughtUp) ?? mostCaughtUp(plan, task, destination, () => true);
    if (source === undefined)
      throw new Error(`task ${task}: a more caught-up client was found, then lost: assignor bug`);
    if (plan.tasks(source, 'standby').has(task) || plan.tasks(source, 'warmup').has(task)) {
      swap(plan, task, source, destination);
      continue;
    }
    plan.assign(source, task, 'active');
    warmUpOrDrop(plan, budget, task, destination);
  }
  return movements.length;
}

/** The source's standby becomes the active; the target keeps a standby copy in its place. */
function swap(plan: ClientPlan, task: string, source: string, destination: string): void {
  const kind = plan.tasks(source, 'standby').has(task) ? 'standby' : 'warmup';
  plan.unassign(source, task, kind);
  plan.assign(source, task, 'active');
  plan.assign(destination, task, 'standby');
}

/**
 * Moves the standbys whose balanced target is not caught up to a caught-up client without a copy
 * (or the most caught-up one); the target keeps its copy as a warm-up while the budget lasts.
 * Warm-ups placed by the active movements stay. Returns how many it moved.
 */
export function moveStandbysToCaughtUpClients(
  plan: ClientPlan,
  tasks: readonly string[],
  budget: WarmupBudget,
): number {
  const movements: Movement[] = [];
  for (const client of plan.ids) {
    for (const task of plan.tasks(client, 'standby')) {
      if (!tasks.includes(task) || !needsMovement(plan, task, client)) continue;
      movements.push({ task, destination: client, caughtUpClients: caughtUpCount(plan, task) });
    }
  }
  let moved = 0;
  for (const { task, destination } of ordered(movements)) {
    const free = (c: string) => !plan.has(c, task);
    const source =
      plan.leastLoaded(plan.ids, (c) => free(c) && plan.caughtUp(c, task)) ??
      mostCaughtUp(plan, task, destination, free);
    // No client without a copy is ahead of the target: the standby stays where it is.
    if (source === undefined) continue;
    plan.unassign(destination, task, 'standby');
    plan.assign(source, task, 'standby');
    warmUpOrDrop(plan, budget, task, destination);
    moved++;
  }
  return moved;
}

/**
 * Moves tasks of one kind from more to less loaded clients until no move improves the balance
 * (Kafka Streams' balanceTasksOverThreads). The task a move takes is the one the destination is
 * most caught up on, then one the source did not own before: balance costs as little restore as it can;
 * then one of a sub-topology the source has more of than the destination, so that each
 * sub-topology spreads (as the sticky assignor spreads it over members).
 */
export function balance(plan: ClientPlan, kind: 'active' | 'standby', loadKinds: readonly CopyKind[]): void {
  // Always from the most to the least loaded pair that can move: trying pairs in id order moved
  // more tasks than needed (4,4,0 became 2,3,3 in three moves where 3,3,2 takes two).
  const limit = plan.ids.reduce((n, c) => n + plan.count(c, [kind]), 0) * plan.ids.length + 1;
  for (let moves = 0; ; moves++) {
    if (moves > limit) throw new Error(`balancing ${kind} tasks does not settle: assignor bug`);
    const byLoad = [...plan.ids].sort(
      (a, b) => plan.load(b, loadKinds) - plan.load(a, loadKinds) || a.localeCompare(b),
    );
    const move = nextMove(plan, kind, loadKinds, byLoad);
    if (move === undefined) return;
    plan.unassign(move.source, move.task, kind);
    plan.assign(move.destination, move.task, kind);
  }
}

function nextMove(
  plan: ClientPlan,
  kind: 'active' | 'standby',
  loadKinds: readonly CopyKind[],
  byLoad: readonly string[],
): { source: string; destination: string; task: string } | undefined {
  for (const source of byLoad) {
    for (const destination of [...byLoad].reverse()) {
      if (source === destination || !plan.shouldMove(source, destination, loadKinds)) continue;
      const task = [...plan.tasks(source, kind)]
        .filter((t) => !plan.has(destination, t))
        .sort(
          (a, b) =>
            plan.rank(destination, a) - plan.rank(destination, b) ||
            Number(wasOn(plan, source, a, kind)) - Number(wasOn(plan, source, b, kind)) ||
            subtopologySkew(plan, kind, destination, source, b) -
              subtopologySkew(plan, kind, destination, source, a) ||
            compareTaskIds(a, b),
        )[0];
      if (task !== undefined) return { source, destination, task };
    }
  }
  return undefined;
}

function wasOn(plan: ClientPlan, client: string, task: string, kind: 'active' | 'standby'): boolean {
  return kind === 'active' ? plan.previouslyActive(client, task) : plan.previouslyStandby(client, task);
}

/** How many more tasks of `task`'s sub-topology `source` has than `destination`. */
function subtopologySkew(
  plan: ClientPlan,
  kind: 'active' | 'standby',
  destination: string,
  source: string,
  task: string,
): number {
  const sub = parseTaskId(task)[0];
  const count = (c: string) => [...plan.tasks(c, kind)].filter((t) => parseTaskId(t)[0] === sub).length;
  return count(source) - count(destination);
}
