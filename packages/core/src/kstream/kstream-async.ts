// KStream's asynchronous operators (issue 41, docs/async-processing.md), kept apart from the
// synchronous ones; KStream extends this class and makes the streams below them.
import type { AsyncOptions, AsyncProcessorSupplier } from '../processor/async-processor.ts';
import {
  type AnyAsyncSupplier,
  type AsyncAction,
  type AsyncPredicate,
  type AsyncValueMapper,
  addAsyncOperator,
  filterAsync,
  flatMapValuesAsync,
  foreachAsync,
  mapValuesAsync,
} from './internals/async-operators.ts';
import type { InternalStreamsBuilder } from './internals/internal-streams-builder.ts';
import type { KStream } from './kstream.ts';

/**
 * Operators whose function returns a promise: a task runs up to `maxInFlight` of their calls at
 * once (records of one key one after another by default) and forwards each result with its
 * input record's context, in the order `ordering` promises. The commit waits for every call in
 * flight, so exactly_once stays exact.
 */
export abstract class KStreamAsyncOperators<K, V> {
  /** @internal */ abstract readonly builder: InternalStreamsBuilder;
  /** @internal */ abstract readonly nodeName: string;
  /** @internal */ protected abstract asyncChild<KR, VR>(name: string, keepsKey: boolean): KStream<KR, VR>;

  /** mapValues with a mapper that returns a promise. */
  mapValuesAsync<VR>(mapper: AsyncValueMapper<K, V, VR>, options?: AsyncOptions): KStream<K, VR> {
    const supplier = mapValuesAsync(mapper as AsyncValueMapper<unknown, unknown, unknown>);
    return this.asyncChild(this.add(supplier, options, 'MAPVALUES'), true);
  }

  /** flatMapValues with a mapper that returns a promise of the values. */
  flatMapValuesAsync<VR>(
    mapper: AsyncValueMapper<K, V, Iterable<VR>>,
    options?: AsyncOptions,
  ): KStream<K, VR> {
    const supplier = flatMapValuesAsync(mapper as AsyncValueMapper<unknown, unknown, Iterable<unknown>>);
    return this.asyncChild(this.add(supplier, options, 'FLATMAPVALUES'), true);
  }

  /** filter with a predicate that returns a promise. */
  filterAsync(predicate: AsyncPredicate<K, V>, options?: AsyncOptions): KStream<K, V> {
    const supplier = filterAsync(predicate as AsyncPredicate<unknown, unknown>);
    return this.asyncChild(this.add(supplier, options, 'FILTER'), true);
  }

  /** foreach with an action that returns a promise (a terminal operation). */
  foreachAsync(action: AsyncAction<K, V>, options?: AsyncOptions): void {
    this.add(foreachAsync(action as AsyncAction<unknown, unknown>), options, 'FOREACH');
  }

  /**
   * process() with an AsyncProcessor, whose process() returns a promise of the records to forward;
   * `stores` are connected to it (read and write them for the record's key).
   */
  processAsync<KOut, VOut>(
    supplier: AsyncProcessorSupplier<K, V, KOut, VOut>,
    options?: AsyncOptions,
    ...stores: string[]
  ): KStream<KOut, VOut> {
    const name = this.add(supplier as unknown as AnyAsyncSupplier, options, 'PROCESSOR', stores);
    return this.asyncChild(name, false);
  }

  private add(
    supplier: AnyAsyncSupplier,
    options: AsyncOptions | undefined,
    kind: string,
    stores?: string[],
  ) {
    return addAsyncOperator(this.builder, this.nodeName, supplier, options, kind, stores);
  }
}
