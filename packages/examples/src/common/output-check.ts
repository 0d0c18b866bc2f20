// An output topic read back, checked against the records a generator expects: each key's record
// exactly once (or, under at_least_once, at least once), with the expected value and timestamp.
import { isDeepStrictEqual } from 'node:util';

export interface OutputRecord {
  key: string;
  value: unknown;
  timestamp: number;
}

export interface OutputCheck {
  /** Expected records read exactly once (at least once, when duplicates are allowed), unchanged. */
  right: number;
  missing: string[];
  /** Keys read more than once (only counted as wrong when duplicates are not allowed). */
  duplicated: string[];
  wrong: Array<{ key: string; got: unknown; expected: unknown }>;
  unexpected: string[];
}

/** Compares what was read with what was expected (one record per key). */
export function checkOutput(
  read: readonly OutputRecord[],
  expected: readonly OutputRecord[],
  allowDuplicates = false,
): OutputCheck {
  const got = new Map<string, OutputRecord[]>();
  for (const r of read) got.set(r.key, [...(got.get(r.key) ?? []), r]);
  const check: OutputCheck = { right: 0, missing: [], duplicated: [], wrong: [], unexpected: [] };
  const keys = new Set<string>();
  for (const e of expected) {
    keys.add(e.key);
    const copies = got.get(e.key);
    if (copies === undefined) {
      check.missing.push(e.key);
      continue;
    }
    if (copies.length > 1) check.duplicated.push(e.key);
    const bad = copies.find((c) => c.timestamp !== e.timestamp || !isDeepStrictEqual(c.value, e.value));
    if (bad) check.wrong.push({ key: e.key, got: bad, expected: e });
    else if (copies.length === 1 || allowDuplicates) check.right++;
  }
  for (const k of got.keys()) if (!keys.has(k)) check.unexpected.push(k);
  return check;
}

export function isRight(check: OutputCheck, allowDuplicates = false): boolean {
  return (
    check.missing.length === 0 &&
    (allowDuplicates || check.duplicated.length === 0) &&
    check.wrong.length === 0 &&
    check.unexpected.length === 0
  );
}

/** The first three of a list, for a one-line report. */
export const few = (list: readonly unknown[]) =>
  list
    .slice(0, 3)
    .map((x) => (typeof x === 'string' ? x : JSON.stringify(x)))
    .join(', ');

/** One line on what is wrong, with a few examples of each kind. */
export function describeCheck(check: OutputCheck, what = 'records'): string {
  const parts = [
    check.missing.length > 0 && `${check.missing.length} ${what} missing (${few(check.missing)})`,
    check.duplicated.length > 0 &&
      `${check.duplicated.length} ${what} more than once (${few(check.duplicated)})`,
    check.wrong.length > 0 && `${check.wrong.length} ${what} wrong (${few(check.wrong)})`,
    check.unexpected.length > 0 &&
      `${check.unexpected.length} ${what} not expected (${few(check.unexpected)})`,
  ].filter(Boolean);
  return parts.length === 0 ? `all ${check.right} ${what} right` : parts.join('; ');
}
