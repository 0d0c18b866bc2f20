// The enrichment app's two output topics read back read_committed, and checked against the
// generator's expected output.
import type { Kafka } from 'kafkajs';
import { CommittedReader } from '../common/committed-reader.ts';
import { checkOutput, describeCheck, isRight, type OutputRecord } from '../common/output-check.ts';
import type { Shop } from './generator.ts';
import type { EnrichmentTopics } from './topology.ts';

export class EnrichmentOutputReader {
  readonly enriched: OutputRecord[] = [];
  readonly status: OutputRecord[] = [];
  private readonly readers: CommittedReader[];

  constructor(kafka: Kafka, topics: EnrichmentTopics, groupId: string) {
    const into =
      (list: OutputRecord[]) =>
      ({ key, value, timestamp }: { key: Buffer; value: Buffer; timestamp: number }) =>
        list.push({ key: key.toString('utf8'), value: JSON.parse(value.toString('utf8')), timestamp });
    this.readers = [
      new CommittedReader(kafka, topics.enriched, `${groupId}-enriched`, into(this.enriched)),
      new CommittedReader(kafka, topics.status, `${groupId}-status`, into(this.status)),
    ];
  }

  /** When the last record of either topic arrived (ms since the epoch; 0: none yet). */
  get lastRecordTime(): number {
    return Math.max(...this.readers.map((r) => r.lastRecordTime));
  }

  /** Distinct keys read of both topics, against the expected count of both. */
  progress(shop: Shop): { read: number; expected: number } {
    const read = new Set(this.enriched.map((r) => r.key)).size + new Set(this.status.map((r) => r.key)).size;
    return { read, expected: shop.expected.enriched.length + shop.expected.status.length };
  }

  async start(): Promise<void> {
    for (const r of this.readers) await r.start();
  }

  async stop(): Promise<void> {
    for (const r of this.readers) await r.stop();
  }

  /** Undefined when both topics hold what the shop expects; else what differs. */
  check(shop: Shop, allowDuplicates = false): string | undefined {
    const enriched = checkOutput(this.enriched, shop.expected.enriched, allowDuplicates);
    const status = checkOutput(this.status, shop.expected.status, allowDuplicates);
    if (isRight(enriched, allowDuplicates) && isRight(status, allowDuplicates)) return undefined;
    return `enriched orders: ${describeCheck(enriched, 'orders')}; order status: ${describeCheck(status, 'statuses')}`;
  }
}
