// Sources that read every topic matching a pattern (Kafka Streams' addSource(Pattern) and
// StreamsBuilder.stream(Pattern)). A pattern is matched against whole topic names, as Java's
// Pattern.matcher(topic).matches(): /orders-.*/ reads orders-eu, not old-orders-eu. The topics
// come from the cluster's metadata (at start, then at each refresh) and join the source node,
// so that all topics of one pattern source are co-partitioned: a task per partition number.
import { TopologyError } from '../../errors.ts';

/** The whole-name form of a user's pattern (flags kept but g and y, which make test() stateful). */
export function wholeTopicPattern(pattern: RegExp): RegExp {
  if (!(pattern instanceof RegExp)) throw new TopologyError('A source pattern must be a RegExp');
  if (pattern.source === '(?:)') throw new TopologyError('A source pattern must not be empty');
  return new RegExp(`^(?:${pattern.source})$`, pattern.flags.replace(/[gy]/g, ''));
}

export class PatternSources {
  /** Source name -> its whole-name pattern, in the order added. */
  private readonly patterns = new Map<string, { readonly user: RegExp; readonly whole: RegExp }>();

  get size(): number {
    return this.patterns.size;
  }

  /** The user's pattern of a source, for describe(). */
  patternOf(sourceName: string): RegExp | undefined {
    return this.patterns.get(sourceName)?.user;
  }

  /** Kafka Streams refuses a pattern that matches a topic another source names explicitly. */
  add(sourceName: string, pattern: RegExp, namedTopics: Iterable<string>): void {
    const whole = wholeTopicPattern(pattern);
    for (const topic of namedTopics) {
      if (whole.test(topic)) {
        throw new TopologyError(
          `Pattern ${pattern} of source ${sourceName} matches topic '${topic}', which another source reads; ` +
            'make the pattern exclude it, or read the topic through one source only',
        );
      }
    }
    this.patterns.set(sourceName, { user: pattern, whole });
  }

  /** A topic named by a source must match no pattern source. */
  requireUnmatched(sourceName: string, topic: string): void {
    for (const [other, { user, whole }] of this.patterns) {
      if (whole.test(topic)) {
        throw new TopologyError(
          `Topic '${topic}' of source ${sourceName} matches pattern ${user} of source ${other}; ` +
            'read each topic with one source (make the pattern exclude it)',
        );
      }
    }
  }

  /**
   * The pattern source each topic joins, for the topics not yet read by a source (`isRead`). A
   * topic matching two patterns is an error, as in Kafka Streams.
   */
  match(
    topics: Iterable<string>,
    isRead: (topic: string) => boolean,
  ): Array<[source: string, topic: string]> {
    const found: Array<[string, string]> = [];
    for (const topic of [...topics].sort()) {
      if (isRead(topic)) continue;
      const sources = [...this.patterns].filter(([, { whole }]) => whole.test(topic)).map(([s]) => s);
      if (sources.length > 1) {
        throw new TopologyError(
          `Topic '${topic}' matches the patterns of sources ${sources.join(' and ')}; ` +
            'make the patterns disjoint, as each topic is read by one source',
        );
      }
      if (sources.length === 1) found.push([sources[0]!, topic]);
    }
    return found;
  }
}
