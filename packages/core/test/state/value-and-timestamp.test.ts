import { describe, expect, it } from 'vitest';
import { Serdes } from '../../src/serdes/serdes.ts';
import { timestampedKeyValueStoreBuilder } from '../../src/state/store-builder.ts';
import { NO_TIMESTAMP, valueAndTimestampSerde } from '../../src/state/value-and-timestamp.ts';

describe('valueAndTimestampSerde', () => {
  const serde = valueAndTimestampSerde(Serdes.String());

  it.each([NO_TIMESTAMP, 0, 1_700_000_000_123, 2 ** 40 + 5, -(2 ** 33) - 7, Number.MAX_SAFE_INTEGER])(
    'writes timestamp %d as a big-endian int64 in front of the value, and reads it back',
    (timestamp) => {
      const bytes = serde.serialize({ value: 'v', timestamp });
      const expected = Buffer.alloc(9);
      expected.writeBigInt64BE(BigInt(timestamp));
      expected.write('v', 8);
      expect(bytes).toEqual(expected);
      expect(serde.deserialize(bytes)).toEqual({ value: 'v', timestamp });
    },
  );
});

describe('timestampedKeyValueStoreBuilder', () => {
  it('gives readers of plain values a serde that skips the timestamp, and keeps it across withLogging*', () => {
    const builder = timestampedKeyValueStoreBuilder('s', Serdes.String(), Serdes.String());
    const bytes = valueAndTimestampSerde(Serdes.String()).serialize({ value: 'hello', timestamp: 42 });
    for (const b of [builder, builder.withLoggingDisabled(), builder.withLoggingEnabled()]) {
      expect(b.timestamped).toBe(true);
      expect(b.valueSerde?.deserialize(bytes)).toBe('hello');
    }
    expect(builder.withLoggingDisabled().loggingEnabled).toBe(false);
    // No serde given: the config's default applies, so there is nothing to wrap yet.
    expect(timestampedKeyValueStoreBuilder('s').valueSerde).toBeUndefined();
  });
});
