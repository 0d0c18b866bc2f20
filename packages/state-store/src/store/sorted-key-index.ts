import { compareStrings } from '../byte-order.ts';

/**
 * Sorted view of a map's keys, kept lazily: new keys are appended unsorted and merged in only
 * when a range query needs order, so puts stay O(1) and a range after k new keys costs
 * O(n + k log k) instead of re-sorting everything. Deleted keys are dropped during the merge.
 */
export class SortedKeyIndex {
  private sorted: string[] = [];
  private added: string[] = [];
  private removedSinceMerge = 0;

  add(key: string): void {
    this.added.push(key);
  }

  noteRemoved(): void {
    this.removedSinceMerge++;
  }

  clear(): void {
    this.sorted = [];
    this.added = [];
    this.removedSinceMerge = 0;
  }

  /** The live keys with `from <= key <= to`, as a snapshot array. */
  keysInRange(isLive: (key: string) => boolean, from: string | undefined, to: string | undefined): string[] {
    this.merge(isLive);
    const start = from === undefined ? 0 : lowerBound(this.sorted, from);
    const end = to === undefined ? this.sorted.length : upperBound(this.sorted, to);
    return start < end ? this.sorted.slice(start, end) : [];
  }

  private merge(isLive: (key: string) => boolean): void {
    if (this.added.length === 0 && this.removedSinceMerge === 0) return;
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
    this.removedSinceMerge = 0;
  }
}

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
