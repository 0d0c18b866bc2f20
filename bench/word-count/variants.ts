// What each app kind of the word-count benchmark runs: which runtime, which guarantee, which
// record-cache setting. The ratios the report prints are between these.
import type { AppKind } from './protocol.ts';

export interface Variant {
  /** kafkajs and platformatic: the hand-written app on that client. */
  runtime: 'kafkajs' | 'platformatic' | 'kstreams' | 'java';
  exactlyOnce: boolean;
  /** The record cache's size in bytes (0 = off); undefined = the app's default. */
  cacheMaxBytes?: number;
  /** Processes of the app, one group: how kstreams uses more than one core. */
  instances: number;
}

export function variantOf(kind: AppKind): Variant {
  const runtime =
    kind === 'kafkajs' || kind === 'platformatic' ? kind : kind.startsWith('java-') ? 'java' : 'kstreams';
  const exactlyOnce = kind.includes('-eos');
  const cacheMaxBytes = kind.endsWith('-nocache') ? 0 : undefined;
  const instances = kind.endsWith('-x2') ? 2 : 1;
  return { runtime, exactlyOnce, cacheMaxBytes, instances };
}

/** The hand-written apps: they use an intermediate topic the bench creates, and two groups. */
export function isHandWritten(kind: AppKind): boolean {
  const { runtime } = variantOf(kind);
  return runtime === 'kafkajs' || runtime === 'platformatic';
}

/** The processingGuarantee a kstreams app runs: `-v2` runs exactly_once_v2 (a transaction per thread). */
export function kstreamsGuarantee(kind: AppKind): 'exactly_once' | 'exactly_once_v2' | 'at_least_once' {
  if (!variantOf(kind).exactlyOnce) return 'at_least_once';
  return kind === 'kstreams-eos-v2' ? 'exactly_once_v2' : 'exactly_once';
}

/** A guarantee's label as in the config (kstreams' and Kafka Streams' names for it). */
export function guaranteeOf(kind: AppKind): 'exactly_once' | 'at_least_once' {
  return variantOf(kind).exactlyOnce ? 'exactly_once' : 'at_least_once';
}

/** The pairs the report compares; `den` is the baseline. Pairs with a missing side are left out. */
export interface Comparison {
  label: string;
  num: AppKind;
  den: AppKind;
  target?: number;
}

export const COMPARISONS: Comparison[] = [
  {
    // The client's ceiling on the same work. At >= 1.3, with working transactions, it would be worth
    // a second backend (issue 18); not a target for kstreams, hence none here.
    label: 'hand-written, @platformatic/kafka / kafkajs',
    num: 'platformatic',
    den: 'kafkajs',
  },
  {
    // The same work: one output record per word (the hand-written app has no cache).
    label: 'kstreams at_least_once without cache / hand-written kafkajs',
    num: 'kstreams-alo-nocache',
    den: 'kafkajs',
    target: 0.7,
  },
  // Issue 18's target; the word count's first one (issue 6) was 0.6.
  { label: 'kstreams exactly_once / at_least_once', num: 'kstreams-eos', den: 'kstreams-alo', target: 0.8 },
  // One transaction per thread (KIP-447) against one per task.
  {
    label: 'kstreams exactly_once_v2 / exactly_once (a transaction per task)',
    num: 'kstreams-eos-v2',
    den: 'kstreams-eos',
  },
  // What the metrics at info level cost (issue 15).
  {
    label: 'kstreams at_least_once, metrics info / off',
    num: 'kstreams-alo',
    den: 'kstreams-alo-nometrics',
    target: 0.97,
  },
  // Default against default: what a user choosing between the two compares (issue 18).
  {
    label: 'exactly_once, kstreams / Java, defaults',
    num: 'kstreams-eos',
    den: 'java-eos-cache',
    target: 1.0,
  },
  { label: 'at_least_once, kstreams / Java, defaults', num: 'kstreams-alo', den: 'java-alo-cache' },
  {
    label: 'exactly_once, kstreams / Java, both without cache',
    num: 'kstreams-eos-nocache',
    den: 'java-eos-nocache',
  },
  {
    label: 'at_least_once, kstreams / Java, both without cache',
    num: 'kstreams-alo-nocache',
    den: 'java-alo-nocache',
  },
  { label: 'Java exactly_once / at_least_once, defaults', num: 'java-eos-cache', den: 'java-alo-cache' },
  // Item 4: what a second process of the app on the machine gives (Java's one stream thread
  // already keeps about 1.7 cores busy with its producer's and the JVM's threads).
  { label: 'kstreams exactly_once, two processes / one', num: 'kstreams-eos-x2', den: 'kstreams-eos' },
  {
    label: 'exactly_once, kstreams two processes / Java one thread',
    num: 'kstreams-eos-x2',
    den: 'java-eos-cache',
  },
];
