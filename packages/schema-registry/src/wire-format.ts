// The Confluent wire format: magic byte 0, the schema id as a 4-byte big-endian int, the payload.
// Every registry-aware client (Java's KafkaAvroSerializer, Apicurio's serdes in Confluent mode)
// reads and writes these bytes, which is what makes kstreams' records readable by them.

export const MAGIC_BYTE = 0;
export const HEADER_SIZE = 5;

export class WireFormatError extends Error {
  override name = 'WireFormatError';
}

export function encodeWire(schemaId: number, payload: Buffer): Buffer {
  if (!Number.isInteger(schemaId) || schemaId < 0 || schemaId > 0x7fffffff) {
    throw new WireFormatError(`a schema id is an int between 0 and 2^31-1, got ${schemaId}`);
  }
  const out = Buffer.allocUnsafe(HEADER_SIZE + payload.length);
  out[0] = MAGIC_BYTE;
  out.writeInt32BE(schemaId, 1);
  payload.copy(out, HEADER_SIZE);
  return out;
}

/** The schema id of a record in the wire format; throws for bytes that are not in it. */
export function schemaIdOf(data: Buffer): number {
  if (data.length < HEADER_SIZE || data[0] !== MAGIC_BYTE) {
    throw new WireFormatError(
      `the record is not in the Schema Registry wire format (magic byte 0 and a 4-byte schema id): ` +
        `${data.length < HEADER_SIZE ? `only ${data.length} bytes` : `first byte is ${data[0]}`}. ` +
        'Was it written by a registry-aware serializer? If the topic carries plain JSON or strings, ' +
        'read it with Serdes.Json() or Serdes.String() instead.',
    );
  }
  return data.readInt32BE(1);
}

export function payloadOf(data: Buffer): Buffer {
  return data.subarray(HEADER_SIZE);
}
