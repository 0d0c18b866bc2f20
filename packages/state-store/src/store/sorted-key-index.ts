import { compareStrings } from '../byte-order.ts';

/**
 * Sorted view of a map's keys, kept lazily: new keys are appended unsorted and merged in only
 * when a range query needs order, so puts stay O(1) and a range after k new keys costs
 * O(n + k log k) instead of re-sorting everything. Deleted keys are dropped during the merge.
 */
export class SortedKeyIndex {
  private sorted: string[] = [];
  private added: string[] = [];
  private removed: string[] = [];

  add(key: string): void {
    this.added.push(key);
  }

  noteRemoved(key: string): void {
    this.removed.push(key);
  }

  clear(): void {
    this.sorted = [];
    this.added = [];
    this.removed = [];
  }

  /** The live keys with `from <= key <= to`, as a snapshot array. */
  keysInRange(isLive: (key: string) => boolean, from: string | undefined, to: string | undefined): string[] {
    this.merge(isLive);
    const start = from === undefined ? 0 : lowerBound(this.sorted, from);
    const end = to === undefined ? this.sorted.length : upperBound(this.sorted, to);
    return start < end ? this.sorted.slice(start, end) : [];
  }

  private merge(isLive: (key: string) => boolean): void {
    if (this.added.length === 0 && this.removed.length === 0) return;
    // A few changes since the last range (a store written a record at a time, read between
    // writes: a stream-stream join's): placed by binary search rather than a pass over every key.
    if (this.added.length + this.removed.length <= SPLICE_LIMIT) {
      for (const key of this.removed) {
        if (isLive(key)) continue;
        const at = lowerBound(this.sorted, key);
        if (this.sorted[at] === key) this.sorted.splice(at, 1);
      }
      for (const key of this.added) {
        if (!isLive(key)) continue;
        const at = lowerBound(this.sorted, key);
        if (this.sorted[at] !== key) this.sorted.splice(at, 0, key);
      }
      this.added = [];
      this.removed = [];
      return;
    }
    const added = this.added.sort(compareStrings);
    const old = this.sorted;
    const merged: string[] = [];
    let i = 0;
    let j = 0;
    let last: string | undefined;
    while (i < old.length || j < added.length) {
      let next: string;
      if (j >= added.length || (i < old.length && old[i]! <= added[j]!)) next = old[i++]!;
      else next = added[j++]!;
      // A key deleted and put again appears twice; a deleted key is no longer live.
      if (next !== last && isLive(next)) merged.push(next);
      last = next;
    }
    this.sorted = merged;
    this.added = [];
    this.removed = [];
  }
}

/** Up to this many changes are spliced in one by one; more are merged in one pass. */
const SPLICE_LIMIT = 32;

function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function upperBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
