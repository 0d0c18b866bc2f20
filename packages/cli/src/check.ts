// The checks of `kstreams verify`, on records already read: no Kafka here, so every rule is unit
// tested on hand-made input.
import type { Value } from './values.ts';

/** One record as verify sees it, in the order a read_committed reader returned it. */
export interface CheckedRecord {
  key: string;
  value: Value | null;
  partition: number;
  offset: number;
}

export type FindingKind = 'duplicate' | 'gap' | 'outOfOrder' | 'loss' | 'excess' | 'mismatch' | 'unexpected';

export interface Finding {
  kind: FindingKind;
  key: string;
  /** How many records (or count units) this finding stands for. */
  count: number;
  detail: string;
  partition?: number;
  offset?: number;
}

/**
 * How a key's values are checked. `sequences`: 1..n, each once (a count whose every update is
 * written). `increasing`: strictly increasing (a count written through the record cache, which
 * skips values); a repeat or a decrease is a duplicate. `last`: only the last value, against the
 * expected ones.
 */
export type CheckMode = 'sequences' | 'increasing' | 'last';

export interface VerifyReport {
  topic?: string;
  mode: CheckMode;
  records: number;
  keys: number;
  /** Per kind, how many records (or count units) are wrong. */
  counts: Record<FindingKind, number>;
  /** Per kind, the number of keys affected. */
  keysAffected: Record<FindingKind, number>;
  /** Per kind, up to `maxExamples` findings. */
  examples: Record<FindingKind, Finding[]>;
  ok: boolean;
}

export interface CheckOptions {
  /** Per key, values must be 1..n with no repeat and no gap. */
  expectSequences?: boolean;
  /** Per key, values must increase strictly (a count written through the record cache). */
  expectIncreasing?: boolean;
  /** Final value per key that the topic must end with. */
  expected?: Map<string, Value>;
  maxExamples?: number;
}

const KINDS: FindingKind[] = ['duplicate', 'gap', 'outOfOrder', 'loss', 'excess', 'mismatch', 'unexpected'];

interface SequenceState {
  seen: Set<number>;
  max: number;
}

/** Runs the checks the options ask for; with neither, it only counts records and keys. */
export function checkRecords(records: CheckedRecord[], options: CheckOptions = {}): VerifyReport {
  if (options.expectSequences && options.expectIncreasing)
    throw new Error(
      'choose one of --expect-sequences (every update written) and --expect-increasing (written through the record cache)',
    );
  const mode: CheckMode = options.expectSequences
    ? 'sequences'
    : options.expectIncreasing
      ? 'increasing'
      : 'last';
  const findings: Finding[] = [];
  const last = new Map<string, Value | null>();
  const sequences = new Map<string, SequenceState>();
  const highest = new Map<string, number>();
  for (const r of records) {
    last.set(r.key, r.value);
    if (mode === 'sequences') checkSequenceRecord(r, sequences, findings);
    else if (mode === 'increasing') checkIncreasingRecord(r, highest, findings);
  }
  if (mode === 'sequences') findings.push(...gapsOf(sequences));
  if (options.expected) {
    const final = new Map<string, Value | null>(last);
    // A count's final value is its highest one: a replayed older count may come after it, and is
    // a duplicate, not a loss.
    if (mode === 'sequences') for (const [k, s] of sequences) final.set(k, s.max);
    if (mode === 'increasing') for (const [k, max] of highest) final.set(k, max);
    findings.push(...compareFinal(final, options.expected));
  }
  return { mode, ...summarize(records.length, last.size, findings, options.maxExamples ?? 5) };
}

/** Not a count: named once, whatever the mode. */
function notACount(r: CheckedRecord): Finding | undefined {
  const v = r.value;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1) return undefined;
  return {
    kind: 'mismatch',
    key: r.key,
    count: 1,
    detail: `value ${JSON.stringify(v)} is not a count >= 1`,
    partition: r.partition,
    offset: r.offset,
  };
}

/**
 * Through the record cache a key's count skips values, but never repeats or goes back: either is
 * a record written again (a replay after a failure), which is what a duplicate is.
 */
function checkIncreasingRecord(r: CheckedRecord, highest: Map<string, number>, out: Finding[]) {
  const wrong = notACount(r);
  if (wrong) {
    out.push(wrong);
    return;
  }
  const v = r.value as number;
  const max = highest.get(r.key) ?? 0;
  if (v > max) {
    highest.set(r.key, v);
    return;
  }
  out.push({
    kind: 'duplicate',
    key: r.key,
    count: 1,
    detail: v === max ? `${v} again` : `${v} after ${max} (an older count written again)`,
    partition: r.partition,
    offset: r.offset,
  });
}

function checkSequenceRecord(r: CheckedRecord, sequences: Map<string, SequenceState>, out: Finding[]) {
  const at = { partition: r.partition, offset: r.offset };
  const wrong = notACount(r);
  if (wrong) {
    out.push(wrong);
    return;
  }
  const v = r.value as number;
  let s = sequences.get(r.key);
  if (!s) {
    s = { seen: new Set(), max: 0 };
    sequences.set(r.key, s);
  }
  if (s.seen.has(v)) {
    out.push({
      kind: 'duplicate',
      key: r.key,
      count: 1,
      detail: `${v} again (highest so far ${s.max})`,
      ...at,
    });
    return;
  }
  if (v < s.max) out.push({ kind: 'outOfOrder', key: r.key, count: 1, detail: `${v} after ${s.max}`, ...at });
  s.seen.add(v);
  s.max = Math.max(s.max, v);
}

/** Values below a key's highest that never came: the sequence has a hole there. */
function gapsOf(sequences: Map<string, SequenceState>): Finding[] {
  const out: Finding[] = [];
  for (const [key, s] of sequences) {
    const missing = s.max - s.seen.size;
    if (missing === 0) continue;
    let first = 1;
    while (s.seen.has(first)) first++;
    out.push({
      kind: 'gap',
      key,
      count: missing,
      detail: `${missing} of 1..${s.max} missing, the first is ${first}`,
    });
  }
  return out;
}

function compareFinal(final: Map<string, Value | null>, expected: Map<string, Value>): Finding[] {
  const out: Finding[] = [];
  for (const [key, want] of expected) {
    const got = final.get(key);
    if (got === undefined || got === null) {
      out.push({
        kind: 'loss',
        key,
        count: typeof want === 'number' ? want : 1,
        detail: `expected ${want}, key absent`,
      });
    } else if (typeof want === 'number' && typeof got === 'number') {
      if (got < want)
        out.push({ kind: 'loss', key, count: want - got, detail: `expected ${want}, got ${got}` });
      else if (got > want)
        out.push({ kind: 'excess', key, count: got - want, detail: `expected ${want}, got ${got}` });
    } else if (String(got) !== String(want)) {
      out.push({
        kind: 'mismatch',
        key,
        count: 1,
        detail: `expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`,
      });
    }
  }
  for (const key of final.keys())
    if (!expected.has(key))
      out.push({ kind: 'unexpected', key, count: 1, detail: `not among the ${expected.size} expected keys` });
  return out;
}

function summarize(
  records: number,
  keys: number,
  findings: Finding[],
  maxExamples: number,
): Omit<VerifyReport, 'mode'> {
  const counts = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<FindingKind, number>;
  const affected = Object.fromEntries(KINDS.map((k) => [k, new Set<string>()])) as Record<
    FindingKind,
    Set<string>
  >;
  const examples = Object.fromEntries(KINDS.map((k) => [k, [] as Finding[]])) as Record<
    FindingKind,
    Finding[]
  >;
  for (const f of findings) {
    counts[f.kind] += f.count;
    affected[f.kind].add(f.key);
    if (examples[f.kind].length < maxExamples) examples[f.kind].push(f);
  }
  const keysAffected = Object.fromEntries(KINDS.map((k) => [k, affected[k].size])) as Record<
    FindingKind,
    number
  >;
  return { records, keys, counts, keysAffected, examples, ok: findings.length === 0 };
}

export { KINDS as FINDING_KINDS };
