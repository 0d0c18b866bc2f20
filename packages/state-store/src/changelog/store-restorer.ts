import { StoreRestoreError } from '../errors.ts';
import type { ChangelogRecord, KeyValueBytesStore, TopicPartition } from '../types.ts';

/** Callbacks about a store's restore from its changelog (Kafka Streams' StateRestoreListener). */
export interface StateRestoreListener {
  onRestoreStart?(storeName: string, changelog: TopicPartition, startOffset: number, endOffset: number): void;
  onBatchRestored?(
    storeName: string,
    changelog: TopicPartition,
    batchEndOffset: number,
    numRestored: number,
  ): void;
  onRestoreEnd?(storeName: string, changelog: TopicPartition, totalRestored: number): void;
}

/**
 * Applies changelog batches straight to the store, each as one atomic `writeBatch`: restored
 * records were already committed, so they skip the transactional buffer. The runtime reads the
 * changelog (read_committed) and writes the checkpoint; this class knows nothing of Kafka.
 */
export class StoreRestorer {
  private readonly store: KeyValueBytesStore;
  private readonly changelog: TopicPartition;
  private readonly listener: StateRestoreListener | undefined;
  private state: 'created' | 'restoring' | 'ended' = 'created';
  private restored = 0;

  constructor(store: KeyValueBytesStore, changelog: TopicPartition, listener?: StateRestoreListener) {
    this.store = store;
    this.changelog = { topic: changelog.topic, partition: changelog.partition };
    this.listener = listener;
  }

  get totalRestored(): number {
    return this.restored;
  }

  /** `startOffset`: first changelog offset to read; `endOffset`: the end offset restore catches up to. */
  start(startOffset: number, endOffset: number): void {
    if (this.state !== 'created') {
      throw new StoreRestoreError(
        `Restore of store "${this.store.name}" was already started; use a new StoreRestorer.`,
      );
    }
    this.state = 'restoring';
    this.listener?.onRestoreStart?.(this.store.name, this.changelog, startOffset, endOffset);
  }

  async restoreBatch(records: readonly ChangelogRecord[], batchEndOffset: number): Promise<void> {
    if (this.state !== 'restoring') {
      throw new StoreRestoreError(
        `Restore of store "${this.store.name}": restoreBatch() must come after start() and before end().`,
      );
    }
    if (records.length > 0) await this.store.writeBatch(records);
    this.restored += records.length;
    this.listener?.onBatchRestored?.(this.store.name, this.changelog, batchEndOffset, records.length);
  }

  end(): void {
    if (this.state !== 'restoring') {
      throw new StoreRestoreError(
        `Restore of store "${this.store.name}": end() must come after start(), once.`,
      );
    }
    this.state = 'ended';
    this.listener?.onRestoreEnd?.(this.store.name, this.changelog, this.restored);
  }
}
