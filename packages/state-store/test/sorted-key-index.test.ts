// The in-memory store's sorted key index against a plain sorted set, through random puts and
// deletes with ranges between few changes (spliced in) and many (merged in one pass).
import { describe, expect, it } from 'vitest';
import { SortedKeyIndex } from '../src/store/sorted-key-index.ts';

describe('SortedKeyIndex', () => {
  it('answers ranges like a sorted copy of the live keys, after few or many changes', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Math.floor((seed / 2_147_483_648) * n);
    };
    const live = new Set<string>();
    const index = new SortedKeyIndex();
    const isLive = (k: string) => live.has(k);
    for (let round = 0; round < 300; round++) {
      const changes = round % 10 === 0 ? 100 : 1 + rand(5);
      for (let i = 0; i < changes; i++) {
        const key = `k${rand(200).toString().padStart(3, '0')}`;
        if (rand(3) === 0) {
          if (live.delete(key)) index.noteRemoved(key);
        } else if (!live.has(key)) {
          live.add(key);
          index.add(key);
        }
      }
      const from = `k${rand(200).toString().padStart(3, '0')}`;
      const expected = [...live].sort().filter((k) => k >= from);
      expect(index.keysInRange(isLive, from, undefined)).toEqual(expected);
    }
  });
});
