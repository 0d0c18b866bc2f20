// The DSL's asynchronous operators (mapValuesAsync, flatMapValuesAsync, filterAsync,
// foreachAsync): each an AsyncProcessor whose promise gives the records to forward.
import {
  type AsyncCall,
  type AsyncOptions,
  type AsyncProcessor,
  asyncSupplier,
  resolveAsyncOptions,
} from '../../processor/async-processor.ts';
import type { Record } from '../../processor/record.ts';
import type { InternalStreamsBuilder } from './internal-streams-builder.ts';

type AnyRecord = Record<unknown, unknown>;
type AnyAsync = AsyncProcessor<unknown, unknown, unknown, unknown>;
export type AnyAsyncSupplier = () => AnyAsync;

/** Adds an asynchronous operator under `parent`; returns its name. */
export function addAsyncOperator(
  builder: InternalStreamsBuilder,
  parent: string,
  supplier: AnyAsyncSupplier,
  options: AsyncOptions | undefined,
  kind: string,
  stores: string[] = [],
): string {
  const name = builder.nameOr(options?.name, `KSTREAM-${kind}-ASYNC-`);
  const resolved = resolveAsyncOptions(options, name);
  builder.addProcessor(name, asyncSupplier(supplier, resolved) as never, [parent]);
  if (stores.length > 0) builder.topology.connectProcessorAndStateStores([name], stores);
  return name;
}

export type AsyncValueMapper<K, V, VR> = (value: V, key: K, call: AsyncCall) => Promise<VR>;
export type AsyncPredicate<K, V> = (key: K, value: V, call: AsyncCall) => Promise<boolean>;
export type AsyncAction<K, V> = (key: K, value: V, call: AsyncCall) => Promise<void>;

export function mapValuesAsync(mapper: AsyncValueMapper<unknown, unknown, unknown>): () => AnyAsync {
  return () => ({
    process: async (record: AnyRecord, call: AsyncCall) => [
      record.withValue(await mapper(record.value, record.key, call)),
    ],
  });
}

export function flatMapValuesAsync(
  mapper: AsyncValueMapper<unknown, unknown, Iterable<unknown>>,
): () => AnyAsync {
  return () => ({
    process: async (record: AnyRecord, call: AsyncCall) => {
      const values = await mapper(record.value, record.key, call);
      return Array.from(values, (value) => record.withValue(value));
    },
  });
}

export function filterAsync(predicate: AsyncPredicate<unknown, unknown>): () => AnyAsync {
  return () => ({
    process: async (record: AnyRecord, call: AsyncCall) =>
      (await predicate(record.key, record.value, call)) ? [record] : undefined,
  });
}

export function foreachAsync(action: AsyncAction<unknown, unknown>): () => AnyAsync {
  return () => ({
    process: async (record: AnyRecord, call: AsyncCall) => {
      await action(record.key, record.value, call);
    },
  });
}

/** Kafka Streams' `process(supplier, ...stores, named)` arguments: store names and an optional `{ name }`. */
export function splitNamedAndStores(args: ReadonlyArray<string | { name?: string }>): {
  name: string | undefined;
  stores: string[];
} {
  let name: string | undefined;
  const stores: string[] = [];
  for (const arg of args) {
    if (typeof arg === 'string') stores.push(arg);
    else name = arg.name;
  }
  return { name, stores };
}
