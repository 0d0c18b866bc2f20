// IQv2's request and results (Kafka Streams' StateQueryRequest, StateQueryResult, QueryResult,
// FailureReason): a request names the store, the query, the partitions and the bound; the answer
// has one result per partition, each a success or a failure with its reason, and its position.
import { StreamsError } from '../errors.ts';
import { Position, PositionBound } from './position.ts';
import type { Query } from './queries.ts';

/** Kafka Streams' FailureReason. */
export type FailureReason =
  /** The partition's store is not active here (Kafka Streams: a standby or restoring task, with requireActive). */
  | 'NOT_ACTIVE'
  /** The store cannot answer this kind of query (a KeyQuery of a window store, say). */
  | 'UNKNOWN_QUERY_TYPE'
  /** The store failed while answering. */
  | 'STORE_EXCEPTION'
  /** The store has not reached the PositionBound (within the wait, if one was given). */
  | 'NOT_UP_TO_BOUND'
  /** The partition asked for is not held by this instance now. */
  | 'NOT_PRESENT'
  /** The partition asked for does not exist. */
  | 'DOES_NOT_EXIST';

/** One partition's answer (Kafka Streams' QueryResult). */
export class QueryResult<R> {
  private constructor(
    private readonly result: R | undefined,
    private readonly failureReason: FailureReason | undefined,
    private readonly failureMessage: string | undefined,
    private position: Position | undefined,
    readonly executionInfo: string[] = [],
  ) {}

  static forResult<R>(result: R): QueryResult<R> {
    return new QueryResult<R>(result, undefined, undefined, undefined);
  }

  static forFailure<R>(reason: FailureReason, message: string): QueryResult<R> {
    return new QueryResult<R>(undefined, reason, message, undefined);
  }

  /** Kafka Streams' forUnknownQueryType. */
  static forUnknownQueryType<R>(query: Query<R>, storeDescription: string): QueryResult<R> {
    return QueryResult.forFailure(
      'UNKNOWN_QUERY_TYPE',
      `This store (${storeDescription}) doesn't know how to execute the given query (${query.type}).`,
    );
  }

  isSuccess(): boolean {
    return this.failureReason === undefined;
  }

  isFailure(): boolean {
    return this.failureReason !== undefined;
  }

  /** The result; throws on a failure, naming its reason (check isSuccess() first). */
  getResult(): R {
    if (this.failureReason !== undefined)
      throw new StreamsError(
        `The query failed (${this.failureReason}: ${this.failureMessage}); check isSuccess() before getResult()`,
      );
    return this.result as R;
  }

  getFailureReason(): FailureReason | undefined {
    return this.failureReason;
  }

  getFailureMessage(): string | undefined {
    return this.failureMessage;
  }

  /** The store partition's position when it answered (also on NOT_UP_TO_BOUND: where it stood). */
  getPosition(): Position | undefined {
    return this.position;
  }

  setPosition(position: Position): void {
    this.position = position;
  }

  getExecutionInfo(): readonly string[] {
    return this.executionInfo;
  }
}

/** The answers of all partitions asked (Kafka Streams' StateQueryResult). */
export class StateQueryResult<R> {
  private readonly partitions = new Map<number, QueryResult<R>>();

  addResult(partition: number, result: QueryResult<R>): void {
    this.partitions.set(partition, result);
  }

  /** partition → its result, by partition. */
  getPartitionResults(): ReadonlyMap<number, QueryResult<R>> {
    return new Map([...this.partitions].sort((a, b) => a[0] - b[0]));
  }

  /** The one partition's result: for a query of one partition (a key's); throws otherwise. */
  getOnlyPartitionResult(): QueryResult<R> | undefined {
    const answered = [...this.partitions.values()].filter((r) => r.isSuccess());
    if (answered.length > 1)
      throw new StreamsError(
        `The query gave results for ${answered.length} partitions, not one; read getPartitionResults() instead`,
      );
    return answered[0];
  }

  /** The positions of all partitions' results merged (Kafka Streams' getPosition()). */
  getPosition(): Position {
    let merged = Position.emptyPosition();
    for (const r of this.partitions.values()) merged = merged.merge(r.getPosition());
    return merged;
  }
}

/** Kafka Streams' StateQueryRequest; build it with `StateQueryRequest.inStore(name).withQuery(q)`. */
export class StateQueryRequest<R> {
  private constructor(
    readonly storeName: string,
    readonly query: Query<R>,
    readonly partitions: readonly number[] | undefined,
    readonly positionBound: PositionBound,
    readonly requireActiveTask: boolean,
    readonly executionInfo: boolean,
  ) {}

  static inStore(storeName: string): { withQuery<R>(query: Query<R>): StateQueryRequest<R> } {
    if (typeof storeName !== 'string' || storeName === '')
      throw new StreamsError('StateQueryRequest.inStore needs the name of a state store');
    return {
      withQuery: (query) =>
        new StateQueryRequest(storeName, query, undefined, PositionBound.unbounded(), false, false),
    };
  }

  /** Only these partitions (the default: every partition this instance holds). */
  withPartitions(partitions: Iterable<number>): StateQueryRequest<R> {
    const list = [...new Set(partitions)].sort((a, b) => a - b);
    for (const p of list)
      if (!Number.isSafeInteger(p) || p < 0)
        throw new StreamsError(`withPartitions takes partition numbers (whole numbers >= 0), got ${p}`);
    return new StateQueryRequest(
      this.storeName,
      this.query,
      list,
      this.positionBound,
      this.requireActiveTask,
      this.executionInfo,
    );
  }

  withAllPartitions(): StateQueryRequest<R> {
    return new StateQueryRequest(
      this.storeName,
      this.query,
      undefined,
      this.positionBound,
      this.requireActiveTask,
      this.executionInfo,
    );
  }

  withPositionBound(bound: PositionBound): StateQueryRequest<R> {
    return new StateQueryRequest(
      this.storeName,
      this.query,
      this.partitions,
      bound,
      this.requireActiveTask,
      this.executionInfo,
    );
  }

  /** Answer from active tasks only (every task kstreams runs is active: it has no standbys yet). */
  requireActive(): StateQueryRequest<R> {
    return new StateQueryRequest(
      this.storeName,
      this.query,
      this.partitions,
      this.positionBound,
      true,
      this.executionInfo,
    );
  }

  /** Each result lists what answered it and how long it took (Kafka Streams' enableExecutionInfo). */
  enableExecutionInfo(): StateQueryRequest<R> {
    return new StateQueryRequest(
      this.storeName,
      this.query,
      this.partitions,
      this.positionBound,
      this.requireActiveTask,
      true,
    );
  }

  getStoreName(): string {
    return this.storeName;
  }

  getQuery(): Query<R> {
    return this.query;
  }

  isAllPartitions(): boolean {
    return this.partitions === undefined;
  }

  getPartitions(): readonly number[] {
    if (this.partitions === undefined)
      throw new StreamsError('The request asks for all partitions; check isAllPartitions() first');
    return this.partitions;
  }

  getPositionBound(): PositionBound {
    return this.positionBound;
  }

  isRequireActive(): boolean {
    return this.requireActiveTask;
  }

  executionInfoEnabled(): boolean {
    return this.executionInfo;
  }
}
