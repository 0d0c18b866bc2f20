// What every cell sends: `keys` keys, each with the sequence 1..perKey in order. Whatever the
// pipeline, its output must hold exactly that per key, so one check (verify --expect-sequences
// against { key: perKey }) measures duplicates, losses and order for every configuration.

export interface Workload {
  keys: number;
  perKey: number;
}

export interface SeqRecord {
  key: string;
  value: string;
}

export const keyNames = (w: Workload): string[] => Array.from({ length: w.keys }, (_, i) => `k${i}`);

export const totalRecords = (w: Workload): number => w.keys * w.perKey;

/** The records in send order: round-robin over the keys, so every chunk touches every key. */
export function sequenceRecords(w: Workload): SeqRecord[] {
  const keys = keyNames(w);
  const out: SeqRecord[] = [];
  for (let seq = 1; seq <= w.perKey; seq++) for (const key of keys) out.push({ key, value: String(seq) });
  return out;
}

/** Input of the word-count apps: each record's value is its key, so counting words gives 1..n. */
export function wordRecords(w: Workload): SeqRecord[] {
  return sequenceRecords(w).map((r) => ({ key: r.key, value: r.key }));
}

/** The final value every key must end with. */
export function expectedFinal(w: Workload): Map<string, number> {
  return new Map(keyNames(w).map((k) => [k, w.perKey]));
}

export function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
