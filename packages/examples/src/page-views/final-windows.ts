// The final per-minute counts read back from the output topic (read_committed), checked against
// the generator's truth: every window exactly once, with exactly the true count.
import { Serdes, WindowedSerdes } from '@kstreams/core';
import type { Kafka } from 'kafkajs';
import { CommittedReader } from '../common/committed-reader.ts';
import { few } from '../common/output-check.ts';
import { windowKey } from './generator.ts';
import { MINUTE_MS } from './topology.ts';

const keySerde = WindowedSerdes.timeWindowedSerdeFrom(Serdes.String(), MINUTE_MS);

export interface FinalWindow {
  user: string;
  start: number;
  end: number;
  views: number;
}

export class FinalWindowsReader {
  /** Every record read, in the order read (per partition). */
  readonly records: FinalWindow[] = [];
  /** How many results each window got (`windowKey`); more than one is a duplicate. */
  readonly seen = new Map<string, number>();
  private readonly reader: CommittedReader;

  constructor(kafka: Kafka, topic: string, groupId: string) {
    this.reader = new CommittedReader(kafka, topic, groupId, ({ key, value }) => {
      const windowed = keySerde.deserialize(key);
      const views = Serdes.Long().deserialize(value);
      this.records.push({ user: windowed.key, ...windowed.window, views });
      const k = windowKey(windowed.key, windowed.window.start);
      this.seen.set(k, (this.seen.get(k) ?? 0) + 1);
    });
  }

  get lastRecordTime(): number {
    return this.reader.lastRecordTime;
  }

  start(): Promise<void> {
    return this.reader.start();
  }

  stop(): Promise<void> {
    return this.reader.stop();
  }
}

export interface WindowCheck {
  /** Windows of the truth with exactly one result, equal to the true count. */
  right: number;
  missing: string[];
  duplicated: string[];
  wrong: Array<{ window: string; got: number; expected: number }>;
  unexpected: string[];
}

/** Compares what was read with the truth (`windowKey` → count). */
export function checkFinalWindows(
  records: readonly FinalWindow[],
  truth: ReadonlyMap<string, number>,
): WindowCheck {
  const got = new Map<string, number[]>();
  for (const r of records) {
    const k = windowKey(r.user, r.start);
    got.set(k, [...(got.get(k) ?? []), r.views]);
  }
  const check: WindowCheck = { right: 0, missing: [], duplicated: [], wrong: [], unexpected: [] };
  for (const [k, expected] of truth) {
    const counts = got.get(k);
    if (counts === undefined) check.missing.push(k);
    else if (counts.length > 1) check.duplicated.push(k);
    else if (counts[0] !== expected) check.wrong.push({ window: k, got: counts[0]!, expected });
    else check.right++;
  }
  for (const k of got.keys()) if (!truth.has(k)) check.unexpected.push(k);
  return check;
}

export function isRight(check: WindowCheck): boolean {
  return (
    check.missing.length === 0 &&
    check.duplicated.length === 0 &&
    check.wrong.length === 0 &&
    check.unexpected.length === 0
  );
}

/** One line on what is wrong, with a few examples of each kind. */
export function describeCheck(check: WindowCheck): string {
  const parts = [
    check.missing.length > 0 && `${check.missing.length} windows missing (${few(check.missing)})`,
    check.duplicated.length > 0 &&
      `${check.duplicated.length} windows emitted more than once (${few(check.duplicated)})`,
    check.wrong.length > 0 && `${check.wrong.length} windows with a wrong count (${few(check.wrong)})`,
    check.unexpected.length > 0 &&
      `${check.unexpected.length} windows that the data does not have (${few(check.unexpected)})`,
  ].filter(Boolean);
  return parts.length === 0 ? `all ${check.right} windows right` : parts.join('; ');
}
