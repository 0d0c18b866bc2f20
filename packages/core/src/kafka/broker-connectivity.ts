// Whether the app reaches its brokers, for /health and the status page: since when requests have
// failed for want of a broker (connection refused, cut, timed out), the last such error, and once
// a broker answers again the last outage's start, end and duration. The fetcher, the group
// coordinator link and kafkajs' own logs report here (few hooks, in client.ts, coordinator.ts
// and partition-fetcher.ts); this module only keeps the record. One record per app (per kafkajs
// client), not per broker: the question an operator asks is "does the app reach Kafka".
import type { Kafka } from 'kafkajs';

/** An outage going on (`until` undefined) or over. Times are epoch milliseconds. */
export interface BrokerOutage {
  since: number;
  until?: number;
  durationMs: number;
  lastError: string;
  /** Failed requests and connections counted during the outage. */
  failures: number;
}

export interface BrokerConnectivitySnapshot {
  /** False while an outage goes on. */
  reachable: boolean;
  /** The outage going on, if any. */
  outage?: BrokerOutage;
  /** The last outage that ended, if any. */
  lastOutage?: BrokerOutage;
}

export interface BrokerConnectivityOptions {
  /**
   * A failure this soon after an outage ended continues that outage: a late error of a request
   * sent while the broker was away, or a flapping link, is one outage, not several.
   */
  mergeMs?: number;
  now?: () => number;
}

export class BrokerConnectivity {
  private current?: { since: number; lastError: string; failures: number };
  private last?: Required<BrokerOutage>;
  private readonly mergeMs: number;
  private readonly now: () => number;

  constructor(options: BrokerConnectivityOptions = {}) {
    this.mergeMs = options.mergeMs ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** A request or connection failed because no broker answered. */
  failed(error: unknown): void {
    const text = error instanceof Error ? error.message : String(error);
    if (this.current === undefined) {
      const resumed = this.last !== undefined && this.now() - this.last.until <= this.mergeMs;
      this.current = resumed
        ? { since: this.last!.since, lastError: text, failures: this.last!.failures }
        : { since: this.now(), lastError: text, failures: 0 };
      if (resumed) this.last = undefined;
    }
    this.current.lastError = text;
    this.current.failures++;
  }

  /** A broker answered a request (any answer, an error code too: the broker is there). */
  answered(): void {
    const c = this.current;
    if (c === undefined) return;
    const until = this.now();
    this.last = {
      since: c.since,
      until,
      durationMs: until - c.since,
      lastError: c.lastError,
      failures: c.failures,
    };
    this.current = undefined;
  }

  snapshot(): BrokerConnectivitySnapshot {
    const c = this.current;
    return {
      reachable: c === undefined,
      ...(c !== undefined && { outage: { ...c, durationMs: this.now() - c.since } }),
      ...(this.last !== undefined && { lastOutage: { ...this.last } }),
    };
  }
}

/** A connection-level failure (no broker answered), as opposed to an error the broker answered. */
export function isUnreachableError(err: unknown): boolean {
  for (
    let e = err as
      | { name?: string; code?: string; message?: string; cause?: unknown; originalError?: unknown }
      | undefined;
    e;
    e = (e.originalError ?? e.cause) as typeof e
  ) {
    if (e.name === 'KafkaJSConnectionError' || e.name === 'KafkaJSConnectionClosedError') return true;
    if (e.name === 'KafkaJSRequestTimeoutError') return true;
    if (
      /ECONNREFUSED|ECONNRESET|EPIPE|Connection (error|timeout)|Closed connection|disconnected before a response/i.test(
        `${e.code ?? ''} ${e.message ?? ''}`,
      )
    )
      return true;
  }
  return false;
}

const records = new WeakMap<Kafka, BrokerConnectivity>();

/** The record of an app's client (client.ts creates it with the client). */
export function connectivityOf(kafka: Kafka): BrokerConnectivity | undefined {
  return records.get(kafka);
}

export function keepConnectivity(kafka: Kafka, connectivity: BrokerConnectivity): void {
  records.set(kafka, connectivity);
}

/** For the hooks: a failure counts only when no broker answered (other errors say nothing here). */
export function noteBrokerFailure(kafka: Kafka, error: unknown): void {
  if (isUnreachableError(error)) records.get(kafka)?.failed(error);
}

export function noteBrokerAnswer(kafka: Kafka): void {
  records.get(kafka)?.answered();
}
