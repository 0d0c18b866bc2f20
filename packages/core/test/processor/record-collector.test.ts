import { describe, expect, it } from 'vitest';
import { SerializationError } from '../../src/errors.ts';
import {
  BufferingRecordCollector,
  type RecordCollector,
  sendSerialized,
} from '../../src/processor/internals/record-collector.ts';
import type { OutputRecord } from '../../src/processor/internals/records.ts';
import { Record } from '../../src/processor/record.ts';
import type { Serde } from '../../src/serdes/serde.ts';
import { Serdes } from '../../src/serdes/serdes.ts';

const sink = { name: 'to-out', keySerde: Serdes.String(), valueSerde: Serdes.Long() } as const;

function capturing(): { collector: RecordCollector; sent: OutputRecord[] } {
  const sent: OutputRecord[] = [];
  return { collector: { send: (r) => sent.push(r) }, sent };
}

describe('sendSerialized', () => {
  it('serializes key and value with the sink serdes and keeps timestamp and headers', () => {
    const { collector, sent } = capturing();
    sendSerialized(collector, sink, 'out', new Record<unknown, unknown>('k', 5, 42, { h: 'v' }));
    sendSerialized(collector, sink, 'out', new Record<unknown, unknown>(null, null, 43));
    expect(sent.map((r) => [r.topic, r.key?.toString(), r.value?.readBigInt64BE(0), r.timestamp])).toEqual([
      ['out', 'k', 5n, 42],
      ['out', undefined, undefined, 43],
    ]);
    expect(sent[0]!.headers).toEqual({ h: 'v' });
    // Null stays null (a tombstone), never a serialized empty value.
    expect([sent[1]!.key, sent[1]!.value]).toEqual([null, null]);
    expect(sent[0]!.partition).toBeUndefined();
  });

  it('names the sink, topic and part when a serde fails, and sends nothing', () => {
    const { collector, sent } = capturing();
    const failing: Serde<unknown> = {
      serialize: () => {
        throw new Error('no');
      },
      deserialize: () => undefined,
    };
    let caught: unknown;
    try {
      sendSerialized(
        collector,
        { ...sink, valueSerde: failing },
        'out',
        new Record<unknown, unknown>('k', 1, 0),
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SerializationError);
    expect(caught).toMatchObject({ topic: 'out', nodeName: 'to-out', part: 'value' });
    expect(sent).toEqual([]);
  });
});

describe('BufferingRecordCollector', () => {
  const record = (i: number): OutputRecord => ({
    topic: 't',
    key: null,
    value: Buffer.from([i]),
    timestamp: i,
  });

  it('buffers in order until drained, and a drain empties it', () => {
    const collector = new BufferingRecordCollector();
    collector.send(record(1));
    collector.send(record(2));
    expect(collector.size).toBe(2);
    expect(collector.drain().records.map((r) => r.timestamp)).toEqual([1, 2]);
    expect(collector.size).toBe(0);
    expect(collector.drain()).toEqual({ batches: [], records: [] });
  });

  it('clear drops what a rolled-back transaction had not sent', () => {
    const collector = new BufferingRecordCollector();
    collector.send(record(1));
    collector.clear();
    collector.send(record(3));
    expect(collector.drain().records.map((r) => r.timestamp)).toEqual([3]);
  });
});
