import { readLong, writeLong } from '@kstreams/state-store';
import { SerdeError } from '../errors.ts';
import type { Schema, Serde } from './serde.ts';

function expectLength(data: Buffer, length: number, serde: string): void {
  if (data.length !== length) {
    throw new SerdeError(`${serde} expects ${length} bytes, got ${data.length}`);
  }
}

const stringSerde: Serde<string> = {
  serialize(data) {
    if (typeof data !== 'string') throw new SerdeError(`String serde expects a string, got ${typeof data}`);
    return Buffer.from(data, 'utf8');
  },
  deserialize(data) {
    return data.toString('utf8');
  },
};

const bytesSerde: Serde<Buffer> = {
  serialize(data) {
    if (!Buffer.isBuffer(data)) throw new SerdeError(`Bytes serde expects a Buffer, got ${typeof data}`);
    return data;
  },
  deserialize(data) {
    return data;
  },
};

const int32Serde: Serde<number> = {
  serialize(data) {
    if (!Number.isInteger(data) || data < -0x80000000 || data > 0x7fffffff) {
      throw new SerdeError(`Int32 serde expects an integer in [-2^31, 2^31 - 1], got ${data}`);
    }
    const out = Buffer.allocUnsafe(4);
    out.writeInt32BE(data, 0);
    return out;
  },
  deserialize(data) {
    expectLength(data, 4, 'Int32 serde');
    return data.readInt32BE(0);
  },
};

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const int64Serde: Serde<bigint> = {
  serialize(data) {
    if (typeof data !== 'bigint' || data < INT64_MIN || data > INT64_MAX) {
      throw new SerdeError(`Int64 serde expects a bigint in [-2^63, 2^63 - 1], got ${String(data)}`);
    }
    const out = Buffer.allocUnsafe(8);
    out.writeBigInt64BE(data, 0);
    return out;
  },
  deserialize(data) {
    expectLength(data, 8, 'Int64 serde');
    return data.readBigInt64BE(0);
  },
};

// Same bytes as Int64 (Java's LongSerializer), as a JS number: what count() produces. Written as
// two 32-bit halves (writeLong/readLong): BigInt conversions cost more than the rest of a count update.
const longSerde: Serde<number> = {
  serialize(data) {
    if (!Number.isSafeInteger(data)) {
      throw new SerdeError(
        `Long serde expects a safe integer (|n| <= 2^53 - 1), got ${data}; use Serdes.Int64()`,
      );
    }
    const out = Buffer.allocUnsafe(8);
    writeLong(out, data, 0);
    return out;
  },
  deserialize(data) {
    expectLength(data, 8, 'Long serde');
    const high = data.readInt32BE(0);
    // Beyond 2^21 in the high half the value is not a safe integer (and the sum below not exact).
    const value = high >= -0x200000 && high < 0x200000 ? readLong(data, 0) : Number.NaN;
    if (!Number.isSafeInteger(value)) {
      throw new SerdeError(
        `Long serde read ${data.readBigInt64BE(0)}, outside the safe integer range; use Serdes.Int64()`,
      );
    }
    return value;
  },
};

const float64Serde: Serde<number> = {
  serialize(data) {
    if (typeof data !== 'number') throw new SerdeError(`Float64 serde expects a number, got ${typeof data}`);
    const out = Buffer.allocUnsafe(8);
    out.writeDoubleBE(data, 0);
    return out;
  },
  deserialize(data) {
    expectLength(data, 8, 'Float64 serde');
    return data.readDoubleBE(0);
  },
};

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Kafka's UUIDSerde writes the 36-character text form, so that is what goes on the wire.
const uuidSerde: Serde<string> = {
  serialize(data) {
    if (typeof data !== 'string' || !UUID_PATTERN.test(data)) {
      throw new SerdeError(`Uuid serde expects a UUID string like 123e4567-e89b-12d3-a456-426614174000`);
    }
    return Buffer.from(data, 'latin1');
  },
  deserialize(data) {
    const text = data.toString('latin1');
    if (!UUID_PATTERN.test(text)) throw new SerdeError(`Uuid serde read '${text}', which is not a UUID`);
    return text;
  },
};

function jsonSerde<T>(schema?: Schema<T>): Serde<T> {
  return {
    serialize(data) {
      const text = JSON.stringify(data);
      if (text === undefined) throw new SerdeError(`Json serde cannot serialize ${typeof data}`);
      return Buffer.from(text, 'utf8');
    },
    deserialize(data) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(data.toString('utf8'));
      } catch (error) {
        throw new SerdeError('Json serde read bytes that are not JSON', { cause: error });
      }
      if (schema === undefined) return parsed as T;
      try {
        return schema.parse(parsed);
      } catch (error) {
        throw new SerdeError('Json serde read JSON that the schema rejected', { cause: error });
      }
    },
  };
}

/** Built-in serdes, named as in Kafka's `Serdes` class. */
export const Serdes = {
  /** UTF-8 text. */
  String: (): Serde<string> => stringSerde,
  /**
   * JSON text. With a schema (a zod schema or any object with `parse`), reads are validated and
   * typed by it; without one, the type parameter is trusted.
   */
  Json: jsonSerde as { <T>(schema: Schema<T>): Serde<T>; <T = unknown>(): Serde<T> },
  /** Raw bytes, unchanged. */
  Bytes: (): Serde<Buffer> => bytesSerde,
  /** 4-byte big-endian signed integer (Java's IntegerSerializer). */
  Int32: (): Serde<number> => int32Serde,
  /** 8-byte big-endian signed integer as bigint (Java's LongSerializer). */
  Int64: (): Serde<bigint> => int64Serde,
  /** 8-byte big-endian signed integer as number, for values within ±(2^53 - 1). */
  Long: (): Serde<number> => longSerde,
  /** 8-byte big-endian IEEE 754 double (Java's DoubleSerializer). */
  Float64: (): Serde<number> => float64Serde,
  /** UUID in its 36-character text form (Java's UUIDSerializer). */
  Uuid: (): Serde<string> => uuidSerde,
  /** A serde from two functions. */
  from: <T>(
    serialize: (data: T, topic?: string) => Buffer,
    deserialize: (data: Buffer, topic?: string) => T,
  ): Serde<T> => ({
    serialize,
    deserialize,
  }),
} as const;
