// kafkajs' Encoder and Decoder with the non-flexible (int32-counted) arrays, strings and bytes the
// membership codecs also use; kafkajs-protocol.ts types only the flexible half.
import { Decoder, Encoder, type KafkajsDecoder } from '../kafkajs-protocol.ts';

/** Every method returns the encoder itself, so chains keep this type. */
export interface EncoderWithArrays {
  writeInt16(value: number): EncoderWithArrays;
  writeInt32(value: number): EncoderWithArrays;
  writeInt64(value: number | string): EncoderWithArrays;
  writeBoolean(value: boolean): EncoderWithArrays;
  writeUVarInt(value: number): EncoderWithArrays;
  writeUVarIntString(value: string | null): EncoderWithArrays;
  writeUVarIntBytes(value: Buffer): EncoderWithArrays;
  writeString(value: string | null): EncoderWithArrays;
  writeBytes(value: Buffer | null): EncoderWithArrays;
  writeArray(
    values: Array<EncoderWithArrays | number | string>,
    type?: 'int32' | 'string',
  ): EncoderWithArrays;
  readonly buffer: Buffer;
}

export interface DecoderWithArrays extends KafkajsDecoder {
  readString(): string | null;
  readBytes(): Buffer | null;
  readBoolean(): boolean;
  readArray<T>(reader: (d: DecoderWithArrays) => T): T[] | null;
  offset: number;
  readonly buffer: Buffer;
}

export const encoder = () => new Encoder() as unknown as EncoderWithArrays;
export const decoder = (data: Buffer) => new Decoder(data) as DecoderWithArrays;

/**
 * Compact bytes (length + 1 as an unsigned varint; 0 is null). kafkajs 2.2.4's readUVarIntBytes
 * returns one byte too many.
 */
export function readCompactBytes(d: DecoderWithArrays): Buffer | null {
  const length = d.readUVarInt() - 1;
  if (length < 0) return null;
  const bytes = d.buffer.subarray(d.offset, d.offset + length);
  d.offset += length;
  return bytes;
}
