// IQv2 on the local instance (Kafka Streams' KafkaStreams.query(StateQueryRequest)): each
// partition of the store this instance holds answers the query from its committed data, with the
// position of that data; a partition below the request's PositionBound is waited for up to the
// timeout given (Kafka Streams answers NOT_UP_TO_BOUND at once: a timeout of 0).
import { type StoreSerde, TransactionalBuffer } from '@kstreams/state-store';
import { StreamsError } from '../errors.ts';
import { parseTaskId } from '../processor/internals/assignment/sticky-task-assignor.ts';
import { isPermitted } from '../query/position.ts';
import { QueryResult, type StateQueryRequest, StateQueryResult } from '../query/results.ts';
import { type QueryDeps, storeSerdes } from './interactive-queries.ts';
import { executeQuery } from './query-execution.ts';

export interface StateQueryOptions {
  /**
   * How long a partition below the request's PositionBound is waited for, in ms, before it
   * answers NOT_UP_TO_BOUND. Default 0: at once, as Kafka Streams.
   */
  timeoutMs?: number;
}

/** How often a partition below its bound looks again (its position moves at each commit). */
const BOUND_POLL_MS = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The local tasks that hold the store, by partition. */
function localPartitions(deps: QueryDeps, storeName: string) {
  const byPartition = new Map<number, ReturnType<QueryDeps['tasks']>[number]>();
  for (const t of deps.tasks())
    if (t.task.storeNames.includes(storeName)) byPartition.set(parseTaskId(t.id)[1], t);
  return byPartition;
}

export async function queryLocalStores<R>(
  deps: QueryDeps,
  request: StateQueryRequest<R>,
  options: StateQueryOptions = {},
): Promise<StateQueryResult<R>> {
  const timeoutMs = options.timeoutMs ?? 0;
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0)
    throw new StreamsError(`query() timeoutMs must be a number of milliseconds >= 0, got ${timeoutMs}`);
  const name = request.getStoreName();
  const { builder, keySerde, valueSerde } = storeSerdes(deps, name);
  if (deps.topology.internalBuilder.isGlobalStore(name))
    throw new StreamsError(
      `State store '${name}' is a global store: IQv2 does not query global stores (nor does Kafka Streams); read it with app.store('${name}')`,
    );
  const deadline = Date.now() + timeoutMs;
  const bound = request.getPositionBound();
  const partitions = request.isAllPartitions()
    ? [...localPartitions(deps, name).keys()]
    : request.getPartitions();

  async function answer(partition: number): Promise<QueryResult<R>> {
    for (;;) {
      const task = localPartitions(deps, name).get(partition);
      if (task === undefined)
        return QueryResult.forFailure(
          'NOT_PRESENT',
          `The requested partition ${partition} was not present at the time of the query.`,
        );
      const { bytes, position } = task.task.committedState(name);
      if (!isPermitted(position, bound, partition)) {
        const left = deadline - Date.now();
        if (left > 0) {
          await sleep(Math.min(BOUND_POLL_MS, left));
          continue;
        }
        const result = QueryResult.forFailure<R>(
          'NOT_UP_TO_BOUND',
          `For store partition ${partition}, the current position ${position} is not yet up to the bound ${bound}${timeoutMs > 0 ? ` (waited ${timeoutMs} ms)` : ''}`,
        );
        result.setPosition(position);
        return result;
      }
      // A fresh, empty buffer over the task's bytes reads exactly what was committed.
      const view = builder.build(
        new TransactionalBuffer(bytes),
        keySerde as StoreSerde<unknown>,
        valueSerde as StoreSerde<unknown>,
      );
      const info = request.executionInfoEnabled()
        ? [`Partition ${partition} answered by task ${task.id}`]
        : undefined;
      const result = await executeQuery(builder, view, request.getQuery(), info);
      if (info !== undefined) result.executionInfo.push(...info);
      result.setPosition(position);
      return result;
    }
  }

  const results = await Promise.all(partitions.map(answer));
  const all = new StateQueryResult<R>();
  for (const [i, p] of partitions.entries()) all.addResult(p, results[i]!);
  return all;
}
