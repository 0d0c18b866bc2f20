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

export interface VerifyReport {
  topic?: string;
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
  const findings: Finding[] = [];
  const last = new Map<string, Value | null>();
  const sequences = new Map<string, SequenceState>();
  for (const r of records) {
    last.set(r.key, r.value);
    if (options.expectSequences) checkSequenceRecord(r, sequences, findings);
  }
  if (options.expectSequences) findings.push(...gapsOf(sequences));
  if (options.expected) {
    const final = new Map<string, Value | null>(last);
    // A count's final value is its highest one: a replayed older count may come after it.
    if (options.expectSequences) for (const [k, s] of sequences) final.set(k, s.max);
    findings.push(...compareFinal(final, options.expected));
  }
  return summarize(records.length, last.size, findings, options.maxExamples ?? 5);
}

function checkSequenceRecord(r: CheckedRecord, sequences: Map<string, SequenceState>, out: Finding[]) {
  const at = { partition: r.partition, offset: r.offset };
  const v = r.value;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    out.push({
      kind: 'mismatch',
      key: r.key,
      count: 1,
      detail: `value ${JSON.stringify(v)} is not a count >= 1`,
      ...at,
    });
    return;
  }
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

function summarize(records: number, keys: number, findings: Finding[], maxExamples: number): VerifyReport {
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
