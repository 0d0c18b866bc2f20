import type { LastWriteTracking } from '@kstreams/state-store';
import type { ProcessorContext } from '../../processor/processor.ts';
import type { Record } from '../../processor/record.ts';
import type { RecordCache } from '../../state/internals/thread-cache.ts';
import { Change } from './change.ts';

type ChangeRecord = Record<unknown, Change<unknown>>;

/** What the runtime's context adds for the DSL's cached stores (Kafka Streams' InternalProcessorContext). */
interface RecordCaching {
  recordCache?<T>(storeName: string, forward: (first: T, latest: T) => void): RecordCache<T> | undefined;
}

function isAbsent(value: unknown): boolean {
  return value === null || value === undefined;
}

/**
 * Kafka Streams' TimestampedTupleForwarder: how a materializing operator (an aggregation, a
 * materialized table) forwards its changes. Without a record cache (`statestoreCacheMaxBytes: 0`,
 * `Materialized.cachingEnabled: false`, or a store the DSL does not cache) each change goes
 * downstream at once. With one, a change
 * waits in the store's cache until the task commits or the cache is full; then each key goes
 * downstream once, with its latest value, the value it had at the last flush as the old value,
 * and the latest update's timestamp and headers. A key that was absent then and is absent now
 * (created and deleted in between) sends nothing, as in Kafka Streams.
 */
export class TimestampedTupleForwarder {
  private readonly cache: RecordCache<ChangeRecord> | undefined;

  /** `store`: the view the operator writes through, right before each maybeForward. */
  constructor(
    private readonly ctx: ProcessorContext<unknown, unknown>,
    private readonly store: LastWriteTracking,
    storeName: string,
  ) {
    this.cache = (ctx as RecordCaching).recordCache?.<ChangeRecord>(storeName, (first, latest) =>
      this.flushed(first, latest),
    );
  }

  get cachingEnabled(): boolean {
    return this.cache !== undefined;
  }

  /** After the store write that this change reports. */
  maybeForward(record: ChangeRecord): void {
    const cache = this.cache;
    const id = this.store.lastWrittenId;
    if (cache === undefined || id === undefined) {
      this.ctx.forward(record);
      return;
    }
    cache.put(id, this.store.lastWrittenBytes, record);
  }

  private flushed(first: ChangeRecord, latest: ChangeRecord): void {
    const { newValue } = latest.value;
    const { oldValue } = first.value;
    if (isAbsent(newValue) && isAbsent(oldValue)) return;
    this.ctx.forward(first === latest ? latest : latest.withValue(new Change(newValue, oldValue)));
  }
}
