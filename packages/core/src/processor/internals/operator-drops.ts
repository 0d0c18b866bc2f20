import type { Logger } from 'pino';
import type { RuntimeNodeRef } from './processor-context-impl.ts';
import type { InputRecord } from './records.ts';

/**
 * Records a task's DSL operators skipped (late for a closed window, a null key): Kafka Streams'
 * dropped-records sensor. Counted each time, logged at debug once per node and reason, so that a
 * stream of late records does not flood the log.
 */
export class OperatorDrops {
  private count = 0;
  private readonly logged = new Set<string>();

  constructor(private readonly logger: Logger) {}

  get total(): number {
    return this.count;
  }

  record(node: RuntimeNodeRef, reason: string, record: InputRecord | undefined): void {
    this.count++;
    const what = `${node.name}: ${reason}`;
    if (this.logged.has(what)) return;
    this.logged.add(what);
    this.logger.debug(
      { node: node.name, topic: record?.topic, offset: record?.offset },
      `record dropped (${reason})`,
    );
  }
}
