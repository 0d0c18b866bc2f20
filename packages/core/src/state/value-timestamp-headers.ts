// Headers in state (Kafka Streams 4.3-4.4, KIP-1271/1285): a headers-aware store keeps each value
// with its timestamp and the headers of the record it stands for, in Kafka Streams' byte format
// (@kstreams/state-store's value-timestamp-headers-format.ts), so that a Java app reads the store's
// changelog and the other way round.
import {
  decodeHeaders,
  encodeAggregationWithHeaders,
  encodeHeaders,
  encodeValueTimestampHeaders,
  type StoreHeader,
  type StoreSerde,
  splitAggregationWithHeaders,
  splitValueTimestampHeaders,
} from '@kstreams/state-store';

/** Record headers (the processor's Headers, spelled here: state does not import processor). */
export type Headers = { [name: string]: Buffer | string | undefined };

/** A stored value, its record's timestamp and headers (Kafka Streams' ValueTimestampHeaders). */
export interface ValueTimestampHeaders<V> {
  readonly value: V;
  readonly timestamp: number;
  readonly headers: Headers;
}

const EMPTY = Buffer.alloc(0);

/** Headers as kafkajs decodes a fetched record's: a key seen more than once is an array. */
export type FetchedHeaders = { readonly [name: string]: unknown };

/**
 * Record headers as a store keeps them, in their order. Fetched records may carry a header key more
 * than once (an array) or a header without value (null): both are kept.
 */
export function toStoreHeaders(headers: Headers | FetchedHeaders | undefined): StoreHeader[] {
  const list: StoreHeader[] = [];
  for (const name in headers) {
    const value = headers[name] as Buffer | string | null | undefined | Array<Buffer | string | null>;
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      list.push([name, one === null ? null : typeof one === 'string' ? Buffer.from(one, 'utf8') : one]);
    }
  }
  return list;
}

/**
 * Stored headers as kstreams' Headers (one value per key): a key stored more than once keeps its
 * last value (Kafka's lastHeader), a header without value becomes empty bytes.
 */
export function fromStoreHeaders(list: readonly StoreHeader[]): Headers {
  const headers: Headers = {};
  for (const [name, value] of list) headers[name] = value ?? EMPTY;
  return headers;
}

/** The encoded headers part of a stored value (empty bytes for none). */
export function headersPart(headers: Headers | FetchedHeaders | undefined): Buffer {
  return encodeHeaders(toStoreHeaders(headers));
}

/** Kafka Streams' ValueTimestampHeadersSerde over the plain values' serde. */
export function valueTimestampHeadersSerde<V>(
  valueSerde: StoreSerde<V>,
): StoreSerde<ValueTimestampHeaders<V>> {
  return {
    serialize: (data) =>
      encodeValueTimestampHeaders(
        headersPart(data.headers),
        data.timestamp,
        valueSerde.serialize(data.value),
      ),
    deserialize: (bytes) => {
      const parts = splitValueTimestampHeaders(bytes);
      return {
        value: valueSerde.deserialize(parts.value),
        timestamp: parts.timestamp,
        headers: fromStoreHeaders(decodeHeaders(parts.headers)),
      };
    },
  };
}

/**
 * A stored value's timestamp and value, with empty headers in front: what Kafka Streams 4.4's DSL
 * operators write into a headers-aware store (KeyValueStoreWrapper.put with new RecordHeaders()).
 */
export function withEmptyHeaders(timestamp: number, valueBytes: Buffer): Buffer {
  return encodeValueTimestampHeaders(EMPTY, timestamp, valueBytes);
}

/** The plain value's bytes inside a headers-aware store's bytes (a view). */
export function plainValueOfHeadersBytes(bytes: Buffer): Buffer {
  return splitValueTimestampHeaders(bytes).value;
}

/**
 * A headers-aware session store's values (Kafka Streams 4.4's AggregationWithHeaders bytes) as
 * plain aggregates: the DSL's session aggregation writes empty headers and reads none, as Kafka
 * Streams 4.4's does (AggregationWithHeaders.make(agg, new RecordHeaders())).
 */
export function aggregationSkippingHeaders<V>(aggregationSerde: StoreSerde<V>): StoreSerde<V> {
  return {
    serialize: (data) => encodeAggregationWithHeaders(EMPTY, aggregationSerde.serialize(data)),
    deserialize: (bytes) => aggregationSerde.deserialize(splitAggregationWithHeaders(bytes).aggregation),
  };
}
