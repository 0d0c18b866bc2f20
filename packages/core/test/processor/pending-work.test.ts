import { describe, expect, it } from 'vitest';
import { isPromise, PendingWork } from '../../src/processor/internals/pending-work.ts';

describe('PendingWork', () => {
  it('drains work added while draining, then throws the first error only', async () => {
    const work = new PendingWork();
    const done: string[] = [];
    expect(work.busy).toBe(false);
    work.track(
      (async () => {
        await new Promise((r) => setTimeout(r, 5));
        done.push('first');
        work.track(Promise.reject(new Error('second')), (e) => new Error(`wrapped ${(e as Error).message}`));
      })(),
      (e) => e,
    );
    work.track(Promise.reject(new Error('early')), (e) => new Error(`wrapped ${(e as Error).message}`));
    expect(work.busy).toBe(true);
    await expect(work.drain()).rejects.toThrow('wrapped early');
    expect(done).toEqual(['first']);
    expect(work.busy).toBe(false);
    await work.drain();
  });

  it('clear forgets pending work and its error', async () => {
    const work = new PendingWork();
    work.track(Promise.reject(new Error('dropped')), (e) => e);
    await Promise.resolve();
    work.clear();
    expect(work.busy).toBe(false);
    await work.drain();
    expect(isPromise(undefined)).toBe(false);
    expect(isPromise(Promise.resolve())).toBe(true);
  });
});
