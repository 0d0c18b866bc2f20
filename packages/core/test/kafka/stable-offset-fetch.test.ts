import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { fetchStableOffsets, stableOffsetScope } from '../../src/kafka/stable-offset-fetch.ts';

describe('fetchStableOffsets scope', () => {
  it('keeps each fetch its partitions across awaits while fetches overlap, and none after', async () => {
    const seen: Array<string | undefined> = [];
    const read = () => {
      const wanted = stableOffsetScope();
      return wanted === undefined ? undefined : [...wanted].map(([t, ps]) => `${t}:${[...ps]}`).join();
    };
    const first = fetchStableOffsets([{ topic: 'a', partition: 1 }], async () => {
      await sleep(5);
      seen.push(read());
    });
    // Still running when the first one ends (and would disable the scope without the count).
    const second = fetchStableOffsets(
      [
        { topic: 'b', partition: 0 },
        { topic: 'b', partition: 2 },
      ],
      async () => {
        await sleep(30);
        seen.push(read());
      },
    );
    await Promise.all([first, second]);
    expect(seen).toEqual(['a:1', 'b:0,2']);
    expect(stableOffsetScope()).toBeUndefined();
    // A fetch after the scope was disabled sees its partitions again.
    await fetchStableOffsets([{ topic: 'c', partition: 3 }], async () => {
      await sleep(1);
      seen.push(read());
    });
    expect(seen.at(-1)).toBe('c:3');
  });

  it('ends the scope when the fetch fails', async () => {
    await expect(
      fetchStableOffsets([{ topic: 'a', partition: 0 }], async () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(stableOffsetScope()).toBeUndefined();
  });
});
