import { InvalidStoreArgumentError } from '../errors.ts';
import type { ChangelogRecord } from '../types.ts';

export function requireKey(storeName: string, key: unknown): asserts key is Buffer {
  if (!Buffer.isBuffer(key)) {
    throw new InvalidStoreArgumentError(
      `State store "${storeName}": keys must be Buffers, got ${describe(key)}. Serialize the key first.`,
    );
  }
}

export function requireValue(storeName: string, value: unknown): asserts value is Buffer {
  if (!Buffer.isBuffer(value)) {
    throw new InvalidStoreArgumentError(
      `State store "${storeName}": values must be Buffers, got ${describe(value)}. ` +
        'Serialize the value first; to remove a key call delete().',
    );
  }
}

export function requireChanges(storeName: string, changes: readonly ChangelogRecord[]): void {
  if (!Array.isArray(changes)) {
    throw new InvalidStoreArgumentError(
      `State store "${storeName}": writeBatch expects an array of { key, value } records, got ${describe(changes)}.`,
    );
  }
  for (const change of changes) {
    requireKey(storeName, change?.key);
    if (change.value !== null) requireValue(storeName, change.value);
  }
}

export function requireBound(storeName: string, bound: unknown, which: 'from' | 'to'): void {
  if (bound !== undefined && !Buffer.isBuffer(bound)) {
    throw new InvalidStoreArgumentError(
      `State store "${storeName}": range bound "${which}" must be a Buffer or undefined (open), got ${describe(bound)}.`,
    );
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof Uint8Array) return 'a Uint8Array that is not a Buffer (wrap it with Buffer.from)';
  return typeof value === 'object' ? `an object (${value.constructor?.name ?? 'Object'})` : typeof value;
}
