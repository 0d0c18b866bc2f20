// After an app stopped (outside the timing): read its whole output topic and check that the last
// count of every word is its true count, so that a fast but wrong app cannot win. at_least_once
// may count a word more than once after a rebalance (reported, allowed); nothing may be lost.
// With the record cache on, an app writes a word's count once per commit rather than once per
// occurrence, so then only the last count per word is checked, not the number of records.
import type { Admin } from 'kafkajs';
import { endOffsets } from './cluster.ts';
import type { OutputTracker } from './output-tracker.ts';

export interface Verification {
  ok: boolean;
  records: number;
  /** Words counted more than once somewhere (at_least_once duplicates). */
  overCounted: number;
  samples: Array<{ word: string; actual: number | undefined }>;
  problems: string[];
}

export async function verifyOutput(opts: {
  admin: Admin;
  tracker: OutputTracker;
  outputTopic: string;
  totalWords: number;
  sampleWords: string[];
  /** exactly_once: no word counted twice (and without cache one record per occurrence, no more). */
  exact: boolean;
  cached: boolean;
}): Promise<Verification> {
  const state = await opts.tracker.readUntil(await endOffsets(opts.admin, opts.outputTopic), 120_000);
  const problems: string[] = [];
  if (state.behind > 0) problems.push(`${state.behind} words with a final count below the true count`);
  if (state.unknown > 0) problems.push(`${state.unknown} output records for words not in the input`);
  if (opts.exact && state.ahead > 0) problems.push(`${state.ahead} words counted more than once`);
  if (opts.cached) {
    if (opts.exact && state.records > opts.totalWords) {
      problems.push(`${state.records} output records, more than the ${opts.totalWords} words`);
    }
  } else if (opts.exact ? state.records !== opts.totalWords : state.records < opts.totalWords) {
    problems.push(`${state.records} output records, expected ${opts.exact ? '' : '>= '}${opts.totalWords}`);
  }
  return {
    ok: problems.length === 0,
    records: state.records,
    overCounted: state.ahead,
    samples: opts.sampleWords.map((word) => ({ word, actual: opts.tracker.latestCount(word) })),
    problems,
  };
}
