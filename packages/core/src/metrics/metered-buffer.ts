// Kafka Streams' MeteredKeyValueStore at debug level: counts every put, get, range and flush
// (the buffer's commit to the store) of a task's store, and times one call in SAMPLE_EVERY so that
// the clock stays off most calls of the hot path. Range and flush are rare: each is timed.
import {
  type KeyValueBytesStore,
  TransactionalBuffer,
  type TransactionalBufferOptions,
} from '@kstreams/state-store';
import type { StoreOperationMetrics } from './streams-metrics-recorder.ts';

const SAMPLE_EVERY = 16;

export class MeteredTransactionalBuffer extends TransactionalBuffer {
  private calls = 0;

  constructor(
    store: KeyValueBytesStore,
    options: TransactionalBufferOptions,
    private readonly ops: StoreOperationMetrics,
  ) {
    super(store, options);
  }

  private timed<T>(sensor: StoreOperationMetrics['get'], call: () => T): T {
    if (++this.calls % SAMPLE_EVERY !== 0) {
      // Counted without a latency: the rate is exact, the averages come from the timed calls.
      sensor.count();
      return call();
    }
    const started = performance.now();
    const result = call();
    sensor.record(1, performance.now() - started);
    return result;
  }

  override get(key: Buffer): Buffer | undefined {
    return this.timed(this.ops.get, () => super.get(key));
  }

  override put(key: Buffer, value: Buffer): void {
    this.timed(this.ops.put, () => super.put(key, value));
  }

  override putIfAbsent(key: Buffer, value: Buffer): Buffer | undefined {
    return this.timed(this.ops.put, () => super.putIfAbsent(key, value));
  }

  override delete(key: Buffer): Buffer | undefined {
    return this.timed(this.ops.put, () => super.delete(key));
  }

  override range(from?: Buffer, to?: Buffer) {
    const started = performance.now();
    const result = super.range(from, to);
    this.ops.range.record(1, performance.now() - started);
    return result;
  }

  override async commit(): Promise<void> {
    const started = performance.now();
    await super.commit();
    this.ops.flush.record(1, performance.now() - started);
  }
}
