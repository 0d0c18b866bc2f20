import { describe, expect, it } from 'vitest';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

function wordCount() {
  const builder = new StreamsBuilder();
  builder
    .stream('lines', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) =>
      line
        .toLowerCase()
        .split(/\W+/)
        .filter((word) => word.length > 0),
    )
    .groupBy((_key, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: 'counts' })
    .toStream()
    .to('word-counts', { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return builder.build();
}

describe('word count', () => {
  it('counts words across lines, one update per word in order', async () => {
    const driver = new TopologyTestDriver(wordCount(), { applicationId: 'wc' });
    const lines = driver.createInputTopic('lines', Serdes.String(), Serdes.String());
    const counts = driver.createOutputTopic('word-counts', Serdes.String(), Serdes.Long());
    await lines.pipeInput(null, 'Hello Kafka Streams');
    await lines.pipeInput(null, 'hello  kafka, hello!');
    await lines.pipeInput(null, '...');
    expect(counts.readKeyValuesToList()).toEqual([
      { key: 'hello', value: 1 },
      { key: 'kafka', value: 1 },
      { key: 'streams', value: 1 },
      { key: 'hello', value: 2 },
      { key: 'kafka', value: 2 },
      { key: 'hello', value: 3 },
    ]);
    expect(driver.getKeyValueStore<string, number>('counts').get('hello')).toBe(3);
    expect(driver.producedTopicNames().sort()).toEqual([
      'wc-counts-changelog',
      'wc-counts-repartition',
      'word-counts',
    ]);
    // Kafka Streams' changelog format: plain counts (the timestamp is the record's).
    const changelog = driver.createOutputTopic('wc-counts-changelog', Serdes.String(), Serdes.Long());
    const updates = new Map(changelog.readKeyValuesToMap());
    expect(updates).toEqual(
      new Map([
        ['hello', 3],
        ['kafka', 2],
        ['streams', 1],
      ]),
    );
    await driver.close();
  });

  it('writes counts as 8-byte big-endian int64, readable as Java longs', async () => {
    const driver = new TopologyTestDriver(wordCount());
    await driver.createInputTopic('lines', Serdes.String(), Serdes.String()).pipeInput('k', 'x x x');
    const raw = driver.createOutputTopic('word-counts', Serdes.String(), Serdes.Bytes()).readValuesToList();
    expect(raw.map((b) => b?.toString('hex'))).toEqual([
      '0000000000000001',
      '0000000000000002',
      '0000000000000003',
    ]);
    await driver.close();
  });

  it('describes two sub-topologies joined by a repartition topic, as Kafka Streams prints it', () => {
    expect(wordCount().describe().toString()).toBe(
      [
        'Topologies:',
        '   Sub-topology: 0',
        '    Source: KSTREAM-SOURCE-0000000000 (topics: [lines])',
        '      --> KSTREAM-FLATMAPVALUES-0000000001',
        '    Processor: KSTREAM-FLATMAPVALUES-0000000001 (stores: [])',
        '      --> KSTREAM-KEY-SELECT-0000000002',
        '      <-- KSTREAM-SOURCE-0000000000',
        '    Processor: KSTREAM-KEY-SELECT-0000000002 (stores: [])',
        '      --> KSTREAM-FILTER-0000000005',
        '      <-- KSTREAM-FLATMAPVALUES-0000000001',
        '    Processor: KSTREAM-FILTER-0000000005 (stores: [])',
        '      --> KSTREAM-SINK-0000000004',
        '      <-- KSTREAM-KEY-SELECT-0000000002',
        '    Sink: KSTREAM-SINK-0000000004 (topic: counts-repartition)',
        '      <-- KSTREAM-FILTER-0000000005',
        '',
        '  Sub-topology: 1',
        '    Source: KSTREAM-SOURCE-0000000006 (topics: [counts-repartition])',
        '      --> KSTREAM-AGGREGATE-0000000003',
        '    Processor: KSTREAM-AGGREGATE-0000000003 (stores: [counts])',
        '      --> KTABLE-TOSTREAM-0000000007',
        '      <-- KSTREAM-SOURCE-0000000006',
        '    Processor: KTABLE-TOSTREAM-0000000007 (stores: [])',
        '      --> KSTREAM-SINK-0000000008',
        '      <-- KSTREAM-AGGREGATE-0000000003',
        '    Sink: KSTREAM-SINK-0000000008 (topic: word-counts)',
        '      <-- KTABLE-TOSTREAM-0000000007',
        '',
        '',
      ].join('\n'),
    );
  });

  it('tells the runtime about both sub-topologies and their internal topics', () => {
    expect(wordCount().subtopologies('wc')).toEqual([
      {
        id: 0,
        sourceTopics: ['lines'],
        repartitionSourceTopics: [],
        sinkTopics: ['wc-counts-repartition'],
        repartitionSinkTopics: ['wc-counts-repartition'],
        stores: [],
      },
      {
        id: 1,
        sourceTopics: ['wc-counts-repartition'],
        repartitionSourceTopics: ['wc-counts-repartition'],
        sinkTopics: ['word-counts'],
        repartitionSinkTopics: [],
        stores: [{ name: 'counts', changelogTopic: 'wc-counts-changelog' }],
      },
    ]);
  });

  it('renders Mermaid with a subgraph per sub-topology and the repartition topic between them', () => {
    const mermaid = wordCount().describe().toMermaid();
    expect(mermaid.split('\n')[0]).toBe('flowchart TD');
    expect(mermaid).toContain('subgraph sub_0["Sub-topology: 0"]');
    expect(mermaid).toContain('subgraph sub_1["Sub-topology: 1"]');
    expect(mermaid).toContain('node_KSTREAM_SINK_0000000004 --> topic_counts_repartition');
    expect(mermaid).toContain('topic_counts_repartition --> node_KSTREAM_SOURCE_0000000006');
    expect(mermaid).toContain('node_KSTREAM_AGGREGATE_0000000003 --- store_counts');
  });
});
