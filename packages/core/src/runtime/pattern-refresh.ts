// Pattern sources at run time (Kafka Streams' stream(Pattern) with metadata.max.age.ms): the
// cluster's topics are listed at start and then every `metadataMaxAgeMs`; a topic that a pattern
// matches joins its source (InternalTopologyBuilder.matchPatternTopics), and the app restarts its
// stream thread so that the consumer subscribes to it (kafkajs matches a RegExp subscription only
// when it subscribes, and cannot subscribe while it runs).
import type { Logger } from 'pino';
import type { InternalTopologyBuilder } from '../processor/internals/internal-topology-builder.ts';

export interface PatternTopicRefreshDeps {
  readonly builder: InternalTopologyBuilder;
  readonly applicationId: string;
  readonly listTopics: () => Promise<string[]>;
  readonly intervalMs: number;
  readonly logger: Logger;
  /** After new topics joined a pattern source. */
  readonly onNewTopics: (topics: string[]) => Promise<void>;
}

/**
 * The topics a pattern may read: not Kafka's own (`__consumer_offsets`, as the consumer's
 * exclude.internal.topics) nor this app's internal topics (`<applicationId>-...-changelog` and
 * `-repartition`), which a broad pattern would otherwise read back.
 */
export function patternCandidates(topics: readonly string[], applicationId: string): string[] {
  const prefix = `${applicationId}-`;
  return topics.filter(
    (t) =>
      !t.startsWith('__') &&
      !(t.startsWith(prefix) && (t.endsWith('-changelog') || t.endsWith('-repartition'))),
  );
}

export class PatternTopicRefresh {
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(private readonly deps: PatternTopicRefreshDeps) {}

  /** Matches the cluster's topics now; the topics that joined a pattern source. */
  async matchNow(): Promise<string[]> {
    const { builder, applicationId, listTopics } = this.deps;
    return builder.matchPatternTopics(patternCandidates(await listTopics(), applicationId));
  }

  start(): void {
    this.timer ??= setInterval(() => void this.refresh(), this.deps.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One refresh at a time: a restart for new topics may outlast an interval. */
  async refresh(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const added = await this.matchNow();
      if (added.length > 0) {
        this.deps.logger.info(
          { topics: added },
          'new topics match a pattern source; restarting the stream thread',
        );
        await this.deps.onNewTopics(added);
      }
    } catch (error) {
      // A failed listing is retried at the next refresh, as Kafka's metadata requests.
      this.deps.logger.warn({ err: error }, 'listing topics for the pattern sources failed');
    } finally {
      this.running = false;
    }
  }
}
