// Each store builder makes its own kind of bytes store from the factory it is given (LevelDB in
// the runtime, memory in the test driver), and the read-only session store face spans tasks.
import {
  InMemoryKeyValueStore,
  TransactionalBuffer,
  TypedKeyValueStore,
  TypedSessionStore,
} from '@kstreams/state-store';
import { describe, expect, it } from 'vitest';
import { Serdes } from '../../src/serdes/serdes.ts';
import { type BytesStoreFactory, inMemoryBytesStores } from '../../src/state/bytes-stores.ts';
import { Stores } from '../../src/state/index.ts';
import { readOnlySessionStore } from '../../src/state/session-store.ts';
import type { StoreBuilder } from '../../src/state/store-builder.ts';
import { suppressionBufferBuilder } from '../../src/state/suppression-buffer-builder.ts';
import { joinBufferBuilder, TimeOrderedJoinBuffer } from '../../src/state/time-ordered-join-buffer.ts';
import { TimeOrderedKeyValueBuffer } from '../../src/state/time-ordered-key-value-buffer.ts';

describe('StoreBuilder.bytesStore', () => {
  const asked: string[] = [];
  const factory: BytesStoreFactory = {
    keyValue: (name) => {
      asked.push(`kv ${name}`);
      return inMemoryBytesStores.keyValue(name);
    },
    window: (name, retentionMs) => {
      asked.push(`window ${name} ${retentionMs}`);
      return inMemoryBytesStores.window(name, retentionMs);
    },
    session: (name, retentionMs) => {
      asked.push(`session ${name} ${retentionMs}`);
      return inMemoryBytesStores.session(name, retentionMs);
    },
  };

  it('asks the factory for the builder’s kind, with its retention, also after withLogging*', () => {
    Stores.keyValueStoreBuilder('kv').bytesStore(factory);
    Stores.windowStoreBuilder('w', { retentionMs: 100, windowSizeMs: 10 })
      .withLoggingDisabled()
      .bytesStore(factory);
    const session = Stores.sessionStoreBuilder('s', { retentionMs: 50 }, Serdes.String(), Serdes.Long());
    session.withLoggingDisabled().bytesStore(factory);
    expect(asked).toEqual(['kv kv', 'window w 100', 'session s 50']);
    expect(session.type).toBe('session');
    expect(session.retentionMs).toBe(50);
    expect(session.withLoggingDisabled().loggingEnabled).toBe(false);
  });

  it('refuses a negative session retention, saying what is wrong', () => {
    expect(() => Stores.sessionStoreBuilder('s', { retentionMs: -1 })).toThrow(
      /Session store 's': retention must be a whole number of ms >= 0, got -1/,
    );
  });
});

describe('readOnlySessionStore', () => {
  const S = Serdes.String();
  const L = Serdes.Long();
  const taskStore = async (name: string) => {
    const bytes = new InMemoryKeyValueStore(name);
    await bytes.open();
    return new TypedSessionStore(name, new TransactionalBuffer(bytes), S, L);
  };

  it('reads each key from the task that holds it and fetches sessions by end, then start', async () => {
    const a = await taskStore('a');
    const b = await taskStore('b');
    a.put({ key: 'x', start: 10, end: 20 }, 2);
    a.put({ key: 'x', start: 30, end: 30 }, 1);
    b.put({ key: 'y', start: 5, end: 6 }, 7);
    const store = readOnlySessionStore('s', () => [a, b]);
    const sessions = async (
      it: AsyncIterableIterator<{ key: { start: number; end: number }; value: number }>,
    ) => {
      const out = [];
      for await (const s of it) out.push([s.key.start, s.key.end, s.value]);
      return out;
    };
    expect(await sessions(store.fetch('x'))).toEqual([
      [10, 20, 2],
      [30, 30, 1],
    ]);
    expect(await sessions(store.backwardFetch('x'))).toEqual([
      [30, 30, 1],
      [10, 20, 2],
    ]);
    // Sessions that end at or after 21 and start at or before 40: only [30;30].
    expect(await sessions(store.findSessions('x', 21, 40))).toEqual([[30, 30, 1]]);
    expect(await sessions(store.findSessions('x', 0, 9))).toEqual([]);
    expect(await sessions(store.fetch('y'))).toEqual([[5, 6, 7]]);
    expect(store.fetchSession('y', 5, 6)).toBe(7);
    expect(store.fetchSession('y', 5, 7)).toBeUndefined();
  });
});

describe('key-value bytes store builders (one builder, the store it builds a parameter)', () => {
  const S = Serdes.String();
  const buffer = async () => {
    const bytes = new InMemoryKeyValueStore('b');
    await bytes.open();
    return new TransactionalBuffer(bytes);
  };

  it('builds each its own store over the buffer and keeps it, and the headers, through withLogging*', async () => {
    const builders = {
      kv: Stores.keyValueStoreBuilder('kv', S, S),
      suppress: suppressionBufferBuilder('suppress', S, S, true),
      join: joinBufferBuilder('join', S, S),
    };
    const kinds = {
      kv: TypedKeyValueStore,
      suppress: TimeOrderedKeyValueBuffer,
      join: TimeOrderedJoinBuffer,
    };
    for (const [name, builder] of Object.entries(builders) as [
      keyof typeof builders,
      StoreBuilder<string, string>,
    ][]) {
      const off = builder.withLoggingDisabled();
      const on = off.withLoggingEnabled();
      expect([builder.loggingEnabled, off.loggingEnabled, on.loggingEnabled]).toEqual([true, false, true]);
      for (const b of [builder, off, on]) {
        expect(b.type).toBe('key-value');
        expect(b.name).toBe(name);
        const store = b.build(await buffer(), S, S);
        expect(store).toBeInstanceOf(kinds[name]);
        expect(store.name).toBe(name);
        // Java's suppression changelog marks its format (`v` = 3); the others carry no headers.
        expect(b.changelogHeaders).toEqual(name === 'suppress' ? { v: Buffer.of(3) } : undefined);
      }
    }
  });
});
