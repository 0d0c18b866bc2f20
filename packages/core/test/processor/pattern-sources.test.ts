// Pattern sources without a broker: how topics match (whole names, as Java's matches()), which
// overlaps are refused, how matched topics join the one source node (one sub-topology, a task
// per partition number), describe(), and the runtime's refresh deciding when to restart.
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { TopologyError } from '../../src/errors.ts';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import { PassThroughProcessor } from '../../src/kstream/internals/kstream-processors.ts';
import { InternalTopologyBuilder } from '../../src/processor/internals/internal-topology-builder.ts';
import { wholeTopicPattern } from '../../src/processor/internals/pattern-sources.ts';
import { PatternTopicRefresh, patternCandidates } from '../../src/runtime/pattern-refresh.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

const silent = pino({ level: 'silent' });

function withPattern(pattern: RegExp): InternalTopologyBuilder {
  const b = new InternalTopologyBuilder();
  b.addSource('orders', pattern);
  b.addProcessor('pass', () => new PassThroughProcessor(), ['orders']);
  return b;
}

describe('pattern sources', () => {
  it('match whole topic names, as Java Pattern.matches()', () => {
    const whole = wholeTopicPattern(/orders-.*/);
    expect(whole.test('orders-eu')).toBe(true);
    expect(whole.test('old-orders-eu')).toBe(false);
    expect(wholeTopicPattern(/a|b/).test('ab')).toBe(false);
    expect(wholeTopicPattern(/ORDERS-.*/i).test('orders-x')).toBe(true);
    // A global flag would make test() remember its last position.
    const g = wholeTopicPattern(/x.*/g);
    expect([g.test('x1'), g.test('x1')]).toEqual([true, true]);
  });

  it('adds the matching topics to the one source node: one sub-topology reads them all', () => {
    const b = withPattern(/orders-.*/);
    expect(b.subtopologies('app')[0]!.sourceTopics).toEqual([]);
    expect(b.matchPatternTopics(['returns', 'orders-us', 'orders-eu'])).toEqual(['orders-eu', 'orders-us']);
    expect(b.matchPatternTopics(['orders-eu', 'orders-apac'])).toEqual(['orders-apac']);
    const subs = b.subtopologies('app');
    expect(subs).toHaveLength(1);
    expect(subs[0]!.sourceTopics).toEqual(['orders-eu', 'orders-us', 'orders-apac']);
    expect(b.matchPatternTopics(['orders-eu'])).toEqual([]);
  });

  it('refuses overlaps with named topics and between patterns, saying what to change', () => {
    const b = withPattern(/orders-.*/);
    expect(() => b.addSource('eu', ['orders-eu'])).toThrow(
      /matches pattern \/orders-\.\*\/ of source orders/,
    );
    const named = new InternalTopologyBuilder();
    named.addSource('eu', ['orders-eu']);
    expect(() => named.addSource('all', /orders-.*/)).toThrow(TopologyError);
    b.addSource('eu-too', /orders-eu.*/);
    expect(() => b.matchPatternTopics(['orders-eu1'])).toThrow(
      /matches the patterns of sources orders and eu-too/,
    );
    expect(() => new InternalTopologyBuilder().addSource('empty', /(?:)/)).toThrow(/must not be empty/);
  });

  it('describe() prints the pattern as Java does', () => {
    const builder = new StreamsBuilder();
    builder.stream(/orders-.*/).to('out');
    expect(builder.build().describe().toString()).toContain(
      'Source: KSTREAM-SOURCE-0000000000 (topics: orders-.*)',
    );
  });
});

describe('pattern sources in the TopologyTestDriver', () => {
  it("feeds each matching topic to the source when first piped to, with the source's extractor", async () => {
    const S = Serdes.String();
    const b = new StreamsBuilder();
    b.stream<string, string>(/in-.*/, { timestampExtractor: { extract: (r) => Number(r.value) } }).to('out');
    const driver = new TopologyTestDriver(b.build(), {
      applicationId: 'pattern',
      defaultKeySerde: S as never,
      defaultValueSerde: S as never,
    });
    try {
      await driver.createInputTopic('in-a', S, S).pipeInput('k', '77', 5);
      await driver.createInputTopic('in-b', S, S).pipeInput('k', '88', 5);
      expect(() => driver.createInputTopic('other', S, S)).toThrow(/does not read topic 'other'/);
      const out = driver.createOutputTopic('out', S, S).readRecordsToList();
      expect(out.map((r) => [r.value, r.timestamp])).toEqual([
        ['77', 77],
        ['88', 88],
      ]);
    } finally {
      await driver.close();
    }
  });
});

describe('the runtime refresh of pattern sources', () => {
  it("leaves out Kafka's and the app's internal topics", () => {
    expect(
      patternCandidates(
        ['__consumer_offsets', 'app-store-changelog', 'app-x-repartition', 'app-orders', 'other-changelog'],
        'app',
      ),
    ).toEqual(['app-orders', 'other-changelog']);
  });

  it('restarts only when a new topic matches; a failed listing waits for the next refresh', async () => {
    const b = withPattern(/orders-.*/);
    let listing: string[] | Error = ['orders-eu', 'returns'];
    const onNewTopics = vi.fn(async () => {});
    const refresh = new PatternTopicRefresh({
      builder: b,
      applicationId: 'app',
      listTopics: async () => {
        if (listing instanceof Error) throw listing;
        return listing;
      },
      intervalMs: 60_000,
      logger: silent,
      onNewTopics,
    });
    expect(await refresh.matchNow()).toEqual(['orders-eu']);
    await refresh.refresh();
    expect(onNewTopics).not.toHaveBeenCalled();
    listing = new Error('broker away');
    await refresh.refresh();
    expect(onNewTopics).not.toHaveBeenCalled();
    listing = ['orders-eu', 'orders-us', 'app-orders-x-changelog'];
    await refresh.refresh();
    expect(onNewTopics).toHaveBeenCalledTimes(1);
    expect(onNewTopics).toHaveBeenCalledWith(['orders-us']);
    expect(b.subtopologies('app')[0]!.sourceTopics).toEqual(['orders-eu', 'orders-us']);
  });
});
