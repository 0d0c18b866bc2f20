"""Confluent's own Python client (confluent-kafka) writing and reading Protobuf and JSON Schema
records in the Confluent wire format, for kstreams' interop tests. Run by
scripts/registry/confluent-python.ts.

  python confluent_serdes.py encode <spec.json>   stdin: JSON objects   stdout: base64 records
  python confluent_serdes.py decode <spec.json>   stdin: base64 records stdout: JSON objects

spec.json: {"format": "protobuf" | "json", "registry": url, "topic": t, ...}
- protobuf: "package": p, "message": name, "fields": [{"name": n, "number": 1,
  "type": "string" | "int64" | "int32", "repeated": false}]. The message class is built from the
  spec (no protoc here). encode uses ProtobufSerializer, which registers the schema under
  <topic>-value (as a serialized FileDescriptorProto, base64, as Confluent's clients do) and
  writes magic byte, schema id, message indexes, payload. decode uses ProtobufDeserializer, which
  checks that framing and reads the message indexes (without a registry: it would base64-decode
  the .proto text kstreams registers).
- json: "schema": a JSON Schema. encode uses JSONSerializer (registers it under <topic>-value,
  validates each record); decode uses JSONDeserializer with the registry: it fetches the
  writer's schema by the record's id and validates the record against it.
"""

import base64
import json
import sys

from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

TYPES = {
    "string": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
    "int64": descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
    "int32": descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
}


def message_class(spec):
    file = descriptor_pb2.FileDescriptorProto(
        name=spec["message"].lower() + ".proto", package=spec["package"], syntax="proto3"
    )
    message = file.message_type.add(name=spec["message"])
    for f in spec["fields"]:
        label = (
            descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
            if f.get("repeated")
            else descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
        )
        message.field.add(name=f["name"], number=f["number"], type=TYPES[f["type"]], label=label)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(spec["package"] + "." + spec["message"]))


def to_json(msg, spec):
    return {f["name"]: list(getattr(msg, f["name"])) if f.get("repeated") else getattr(msg, f["name"]) for f in spec["fields"]}


def protobuf_serdes(spec, registry):
    cls = message_class(spec)
    serializer = ProtobufSerializer(cls, registry)
    deserializer = ProtobufDeserializer(cls)
    return (lambda obj, ctx: serializer(cls(**obj), ctx)), (lambda data, ctx: to_json(deserializer(data, ctx), spec))


def json_serdes(spec, registry):
    schema = json.dumps(spec["schema"])
    serializer = JSONSerializer(schema, registry)
    deserializer = JSONDeserializer(None, schema_registry_client=registry)
    return serializer, deserializer


def main():
    mode, spec_file = sys.argv[1], sys.argv[2]
    with open(spec_file) as fh:
        spec = json.load(fh)
    registry = SchemaRegistryClient({"url": spec["registry"]})
    encode, decode = (protobuf_serdes if spec["format"] == "protobuf" else json_serdes)(spec, registry)
    ctx = SerializationContext(spec["topic"], MessageField.VALUE)
    for line in sys.stdin:
        if not line.strip():
            continue
        if mode == "encode":
            print(base64.b64encode(encode(json.loads(line), ctx)).decode("ascii"), flush=True)
        elif mode == "decode":
            print(json.dumps(decode(base64.b64decode(line), ctx)), flush=True)
        else:
            raise SystemExit("mode must be encode or decode, got " + mode)


if __name__ == "__main__":
    main()
