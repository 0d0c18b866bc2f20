// protobufSerde: Protobuf messages in the Confluent wire format. After the magic byte and schema
// id comes the message's index path in the .proto file (which message, nested how), as Confluent's
// KafkaProtobufSerializer writes it: a zigzag varint count, then each index as a zigzag varint,
// the common path [0] (the file's first message) as the single byte 0. Then the Protobuf bytes.
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { DecoderCache, type RegistrySerde, type RegistrySerdeOptions, WriterIds } from './registry-serde.ts';
import { topicNameStrategy } from './subject-strategy.ts';
import { encodeWire, HEADER_SIZE, WireFormatError } from './wire-format.ts';

export interface ProtobufSerdeOptions extends RegistrySerdeOptions {
  /** The .proto text (proto3), registered as this serde's schema. */
  schema?: string;
  /** The message written and read, by full name (default: the file's first message). */
  messageName?: string;
}

interface ParsedProto {
  /** The messages a message-index path walks: the file's top-level messages. */
  top: protobuf.Type[];
  byName(name: string | undefined): { type: protobuf.Type; path: number[] };
  byPath(path: number[]): protobuf.Type;
}

/** Base64 text, no whitespace or `;`: a serialized FileDescriptorProto, never .proto source. */
const SERIALIZED = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The schema's root and package, from .proto text or from the serialized FileDescriptorProto
 * (base64) that Confluent's own clients (Java, Python, JavaScript) register. A Confluent registry
 * hands either back as text; others (Apicurio 2.x) keep what they were given, so both arrive here.
 */
function parseSchemaText(text: string): { root: protobuf.Root; package: string | undefined } {
  const trimmed = text.trim();
  if (!SERIALIZED.test(trimmed)) {
    const parsed = protobuf.parse(text, { keepCase: true });
    return { root: parsed.root, package: parsed.package };
  }
  let file: protobuf.Message & { package?: string };
  try {
    file = descriptor.FileDescriptorProto.decode(Buffer.from(trimmed, 'base64'));
  } catch (cause) {
    throw new Error('the Protobuf schema is neither .proto text nor a serialized FileDescriptorProto', {
      cause,
    });
  }
  const set = descriptor.FileDescriptorSet.encode({ file: [file] }).finish();
  // Added to Root by the descriptor extension imported above (its typings do not declare it).
  const fromDescriptor = (protobuf.Root as unknown as { fromDescriptor(set: Uint8Array): protobuf.Root })
    .fromDescriptor;
  return { root: fromDescriptor(set), package: file.package || undefined };
}

export function parseProto(text: string): ParsedProto {
  const parsed = parseSchemaText(text);
  const ns = parsed.package ? (parsed.root.lookup(parsed.package) as protobuf.Namespace) : parsed.root;
  const messages = (n: protobuf.NamespaceBase) => n.nestedArray.filter((x) => x instanceof protobuf.Type);
  const top = messages(ns);
  if (top.length === 0) throw new Error('the .proto schema declares no message');
  return {
    top,
    byName(name) {
      if (name === undefined) return { type: top[0]!, path: [0] };
      const find = (
        list: protobuf.Type[],
        path: number[],
      ): { type: protobuf.Type; path: number[] } | undefined => {
        for (const [i, t] of list.entries()) {
          if (t.fullName.slice(1) === name || t.name === name) return { type: t, path: [...path, i] };
          const inner = find(messages(t), [...path, i]);
          if (inner) return inner;
        }
        return undefined;
      };
      const found = find(top, []);
      if (!found) throw new Error(`the .proto schema has no message named "${name}"`);
      return found;
    },
    byPath(path) {
      let list = top;
      let type: protobuf.Type | undefined;
      for (const i of path) {
        type = list[i];
        if (type === undefined)
          throw new WireFormatError(`message index path [${path}] is not in the writer's schema`);
        list = messages(type);
      }
      return type!;
    },
  };
}

/** Confluent's message-index header: [0] as one zero byte, else count and indexes, zigzag varints. */
export function encodeMessageIndexes(path: number[]): Buffer {
  if (path.length === 1 && path[0] === 0) return Buffer.from([0]);
  const bytes: number[] = [];
  for (const n of [path.length, ...path]) {
    let z = (n << 1) ^ (n >> 31);
    while (z > 0x7f) {
      bytes.push((z & 0x7f) | 0x80);
      z >>>= 7;
    }
    bytes.push(z);
  }
  return Buffer.from(bytes);
}

export function decodeMessageIndexes(data: Buffer, offset: number): { path: number[]; next: number } {
  let pos = offset;
  const readVarint = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (pos >= data.length) throw new WireFormatError('the Protobuf message-index header is cut short');
      const b = data[pos++]!;
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
    }
    return (result >>> 1) ^ -(result & 1);
  };
  const count = readVarint();
  if (count === 0) return { path: [0], next: pos };
  const path: number[] = [];
  for (let i = 0; i < count; i++) path.push(readVarint());
  return { path, next: pos };
}

const TO_OBJECT: protobuf.IConversionOptions = { longs: Number, enums: String, defaults: true };

export function protobufSerde<T = unknown>(options: ProtobufSerdeOptions): RegistrySerde<T> {
  const own = options.schema === undefined ? undefined : parseProto(options.schema);
  const ownMessage = own?.byName(options.messageName);
  const decoders = new DecoderCache(options.registry, (schema) => {
    const writer = parseProto(schema);
    return (path: number[]) => {
      const type = writer.byPath(path);
      // Read with this serde's message of the same name where it has one (its field names and
      // defaults); the bytes are the same under compatible evolution.
      return (own && safeLookup(own, type.fullName.slice(1))) ?? type;
    };
  });
  const writers = new WriterIds(
    { ...options, subjectNameStrategy: options.subjectNameStrategy ?? topicNameStrategy },
    'PROTOBUF',
    options.schema === undefined || ownMessage === undefined
      ? undefined
      : { text: options.schema, recordName: ownMessage.type.fullName.slice(1), writer: ownMessage },
    (schema) => parseProto(schema).byName(options.messageName),
    'protobufSerde',
    (id, schema) => decoders.seed(id, schema),
  );
  return {
    init: (topics, options) => writers.init(topics, options),
    serialize(data, topic) {
      const { id, writer } = writers.get(topic);
      const problem = writer.type.verify(data as object);
      if (problem)
        throw new Error(`the record does not fit message ${writer.type.fullName.slice(1)}: ${problem}`);
      const body = writer.type.encode(writer.type.fromObject(data as object)).finish();
      return encodeWire(id, Buffer.concat([encodeMessageIndexes(writer.path), body]));
    },
    prepare: (data) => decoders.prepare(data),
    deserialize(data) {
      const typeFor = decoders.get(data);
      const { path, next } = decodeMessageIndexes(data, HEADER_SIZE);
      const type = typeFor(path);
      return type.toObject(type.decode(data.subarray(next)), TO_OBJECT) as T;
    },
  };
}

function safeLookup(proto: ParsedProto, name: string): protobuf.Type | undefined {
  try {
    return proto.byName(name).type;
  } catch {
    return undefined;
  }
}
