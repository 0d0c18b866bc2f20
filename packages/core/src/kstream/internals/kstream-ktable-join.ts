import type { Processor, ProcessorContext } from '../../processor/processor.ts';
import { Record } from '../../processor/record.ts';
import type { BufferedStreamRecord, TimeOrderedJoinBuffer } from '../../state/time-ordered-join-buffer.ts';
import { droppedRecord } from './dropped-records.ts';
import type {
  KTableValueGetter,
  KTableValueGetterSupplier,
  KTableVersionedGetter,
} from './ktable-value-getter.ts';
import type { ValueJoinerWithKey } from './value-joiner.ts';

type Ctx = ProcessorContext<unknown, unknown>;

function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/**
 * Kafka Streams' KStreamKTableJoinProcessor, for KTable and GlobalKTable joins alike: each stream
 * record looks its join key up in the table (the stream's key, or the key selector's for a global
 * table); table updates only update the table. The result keeps the stream record's key and
 * timestamp. Dropped and counted: a null value, or (inner join) a null join key; since KIP-962 a
 * left join keeps a record whose join key is null (the record's key, or the key selector's) and
 * joins it with null, as Kafka Streams 4.4 does. A versioned table is read as of the stream
 * record's timestamp (a temporal join, KIP-914): a record older than the table's history retention
 * finds no row unless the latest version is older still, as Kafka Streams' versioned store answers.
 *
 * With a grace period (`Joined.gracePeriodMs`, KIP-923; versioned tables only) the stream records
 * wait in a time-ordered buffer until the buffer's stream time passes them by the grace period, and
 * are joined in timestamp order then, so that table updates up to the grace late are seen. A record
 * already older than that is joined at once, as in Kafka Streams.
 */
export class KStreamKTableJoinProcessor implements Processor<unknown, unknown, unknown, unknown> {
  private ctx!: Ctx;
  private table!: KTableValueGetter;
  /** A versioned table: read as of each stream record's timestamp (KIP-914). */
  private tableAsOf: KTableVersionedGetter | undefined;

  constructor(
    private readonly getter: KTableValueGetterSupplier,
    private readonly keyMapper: (key: unknown, value: unknown) => unknown,
    private readonly joiner: ValueJoinerWithKey<unknown, unknown, unknown, unknown>,
    private readonly leftJoin: boolean,
    private readonly grace?: { storeName: string; gracePeriodMs: number },
  ) {}

  private buffer: TimeOrderedJoinBuffer<unknown, unknown> | undefined;

  init(context: Ctx): void {
    this.ctx = context;
    this.table = this.getter.get(context);
    this.tableAsOf = this.getter.getAsOf?.(context);
    if (this.grace !== undefined)
      this.buffer = context.getStateStore<TimeOrderedJoinBuffer<unknown, unknown>>(this.grace.storeName);
  }

  process(record: Record<unknown, unknown>): void | Promise<void> {
    const buffer = this.buffer;
    if (buffer === undefined) return this.join(record);
    // The buffer's time index is rebuilt after the restore and after a rollback.
    if (buffer.needsLoad) return buffer.load().then(() => this.bufferOrJoin(buffer, record));
    this.bufferOrJoin(buffer, record);
  }

  private bufferOrJoin(
    buffer: TimeOrderedJoinBuffer<unknown, unknown>,
    record: Record<unknown, unknown>,
  ): void {
    const joinKey = this.keyMapper(record.key, record.value);
    // Dropped records are not buffered; a left join's null key cannot be (the buffer keys by it).
    if (isAbsent(record.value) || isAbsent(record.key) || isAbsent(joinKey)) {
      this.join(record);
      return;
    }
    const meta = this.ctx.recordMetadata();
    const context = {
      timestamp: record.timestamp,
      offset: meta?.offset ?? -1,
      topic: meta?.topic ?? '',
      partition: meta?.partition ?? -1,
      headers: record.headers,
    };
    const { gracePeriodMs } = this.grace!;
    if (buffer.put(record.key, record.value, context, gracePeriodMs))
      buffer.evictExpired(gracePeriodMs, this.emit);
    else this.join(record);
  }

  private readonly emit = ({ key, value, context }: BufferedStreamRecord<unknown, unknown>): void => {
    this.join(new Record(key, value, context.timestamp, context.headers));
  };

  private join(record: Record<unknown, unknown>): void {
    const joinKey = this.keyMapper(record.key, record.value);
    const keptByLeftJoin = this.leftJoin && isAbsent(joinKey) && !isAbsent(record.value);
    if (!keptByLeftJoin && (isAbsent(joinKey) || isAbsent(record.value))) {
      droppedRecord(this.ctx, 'null join key or value');
      return;
    }
    const other = isAbsent(joinKey) ? null : (this.lookup(joinKey, record.timestamp)?.value ?? null);
    if (other === null && !this.leftJoin) return;
    this.ctx.forward(record.withValue(this.joiner(record.key, record.value, other)));
  }

  private lookup(key: unknown, timestamp: number) {
    return this.tableAsOf === undefined ? this.table(key) : this.tableAsOf(key, timestamp);
  }
}
