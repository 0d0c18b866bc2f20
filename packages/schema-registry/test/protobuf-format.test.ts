import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { describe, expect, it } from 'vitest';
import { decodeMessageIndexes, encodeMessageIndexes, parseProto } from '../src/protobuf-serde.ts';

const proto = `
syntax = "proto3";
package com.acme;
message Order { string customer = 1; int64 amount = 2; message Line { string sku = 1; } }
message Refund { string customer = 1; }
`;

describe("Confluent's Protobuf message indexes", () => {
  it('writes the first message as one zero byte, others as a zigzag count and indexes', () => {
    expect([...encodeMessageIndexes([0])]).toEqual([0]);
    expect([...encodeMessageIndexes([1])]).toEqual([2, 2]);
    expect([...encodeMessageIndexes([0, 0])]).toEqual([4, 0, 0]);
    expect([...encodeMessageIndexes([70])]).toEqual([2, 0x8c, 0x01]);
  });

  it('reads back what it writes, and where the payload starts', () => {
    for (const path of [[0], [1], [0, 0], [3, 70, 2]]) {
      const bytes = Buffer.concat([Buffer.from([9, 9]), encodeMessageIndexes(path), Buffer.from([42])]);
      const { path: read, next } = decodeMessageIndexes(bytes, 2);
      expect(read).toEqual(path);
      expect(bytes[next]).toBe(42);
    }
    expect(() => decodeMessageIndexes(Buffer.from([0x80]), 0)).toThrow(/cut short/);
  });

  it('finds messages by full name or path, nested ones included', () => {
    const p = parseProto(proto);
    expect(p.byName(undefined).path).toEqual([0]);
    expect(p.byName('com.acme.Refund').path).toEqual([1]);
    expect(p.byName('com.acme.Order.Line').path).toEqual([0, 0]);
    expect(p.byPath([0, 0]).name).toBe('Line');
    expect(() => p.byName('Nope')).toThrow(/no message named "Nope"/);
    expect(() => p.byPath([5])).toThrow(/not in the writer's schema/);
  });

  it('reads a schema registered as a serialized FileDescriptorProto, as Confluent clients register them', () => {
    const root = protobuf.parse(proto, { keepCase: true }).root;
    const set = (
      root as unknown as { toDescriptor(syntax: string): { file: protobuf.Message[] } }
    ).toDescriptor('proto3');
    const base64 = Buffer.from(descriptor.FileDescriptorProto.encode(set.file[0]!).finish()).toString(
      'base64',
    );
    const p = parseProto(base64);
    expect(p.byName('com.acme.Refund').path).toEqual([1]);
    expect(p.byPath([0, 0]).fullName).toBe('.com.acme.Order.Line');
    expect(Object.keys(p.byPath([0]).fields)).toEqual(['customer', 'amount']);
    expect(() => parseProto('AAAA')).toThrow();
  });
});
