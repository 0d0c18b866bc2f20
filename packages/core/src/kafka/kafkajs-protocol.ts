// The parts of kafkajs' protocol codec that core's own request versions use (kafkajs 2.2.4 has
// no types for them). Flexible versions (KIP-482) start the body with the request header's empty
// tagged fields and their responses with the response header's: kafkajs writes and strips only the
// fixed parts of both headers.
import { requireFromCore as require } from './kafkajs-modules.ts';

export interface KafkajsEncoder {
  writeInt16(value: number): KafkajsEncoder;
  writeInt32(value: number): KafkajsEncoder;
  writeInt64(value: number | string | bigint): KafkajsEncoder;
  writeBoolean(value: boolean): KafkajsEncoder;
  writeUVarInt(value: number): KafkajsEncoder;
  /** Compact (nullable) string: length + 1 as an unsigned varint. */
  writeUVarIntString(value: string | null): KafkajsEncoder;
  /** Compact array of encoders. */
  writeUVarIntArray(values: KafkajsEncoder[]): KafkajsEncoder;
}

export interface KafkajsDecoder {
  readInt16(): number;
  readInt32(): number;
  readInt64(): { toString(): string };
  readUVarInt(): number;
  readUVarIntString(): string | null;
  readUVarIntArray<T>(reader: (d: KafkajsDecoder) => T): T[] | null;
  readTaggedFields(): unknown;
}

export const Encoder = require('kafkajs/src/protocol/encoder.js') as new () => KafkajsEncoder;
export const Decoder = require('kafkajs/src/protocol/decoder.js') as new (data: Buffer) => KafkajsDecoder;
/** kafkajs' table of Kafka's error codes (name, code, whether retriable, message). */
export const { errorCodes } = require('kafkajs/src/protocol/error.js') as {
  errorCodes: Array<{ type: string; code: number; retriable: boolean; message: string }>;
};

/** What a request version gives kafkajs' broker: the request to send and its response codec. */
export interface RequestProtocol<R> {
  request: { apiKey: number; apiVersion: number; apiName: string; encode(): Promise<KafkajsEncoder> };
  response: { decode(data: Buffer): Promise<R>; parse(data: R): Promise<R> };
}

/** An empty tagged-field section (flexible versions end every structure with one). */
export const NO_TAGGED_FIELDS = 0;

/** A compact array of int32s (kafkajs' writeUVarIntArray takes only encoders). */
export function compactInt32Array(encoder: KafkajsEncoder, values: number[]): KafkajsEncoder {
  encoder.writeUVarInt(values.length + 1);
  for (const v of values) encoder.writeInt32(v);
  return encoder;
}

/**
 * A flexible response's compact array of topics, each with a compact array of partitions
 * (`readPartition` reads one's fields; the tagged fields after each are skipped here).
 */
export function readTopicPartitions<P>(
  d: KafkajsDecoder,
  readPartition: (p: KafkajsDecoder) => P,
): Array<{ topic: string; partitions: P[] }> {
  return (
    d.readUVarIntArray((t: KafkajsDecoder) => {
      const topic = t.readUVarIntString() ?? '';
      const partitions =
        t.readUVarIntArray((p: KafkajsDecoder) => {
          const partition = readPartition(p);
          p.readTaggedFields();
          return partition;
        }) ?? [];
      t.readTaggedFields();
      return { topic, partitions };
    }) ?? []
  );
}

/** kafkajs' error for a Kafka error code (its type, message and whether it is retriable). */
export const { createErrorFromCode } = require('kafkajs/src/protocol/error.js') as {
  createErrorFromCode(code: number): Error & { type: string; retriable: boolean };
};

/** The request `protocol({ version })(args)` of kafkajs' definitions, with its response codec. */
export interface KafkajsRequestDefinition {
  versions: string[];
  protocol(options: { version: number }):
    | ((args: never) => {
        request: unknown;
        response: { decode(data: Buffer): Promise<unknown>; parse(data: unknown): Promise<unknown> };
        requestTimeout?: number;
      })
    | undefined;
}

/** kafkajs' request definitions by name (Fetch, ListOffsets, ...); read at each call. */
export function kafkajsRequest(name: string): KafkajsRequestDefinition {
  const { requests } = require('kafkajs/src/protocol/requests/index.js') as {
    requests: Record<string, KafkajsRequestDefinition>;
  };
  const definition = requests[name];
  if (definition === undefined) throw new Error(`kafkajs changed: it has no ${name} request`);
  return definition;
}
