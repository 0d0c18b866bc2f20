// Readiness and liveness from the app's state and its broker connectivity, as a load balancer or
// Kubernetes probe reads them.
import type { BrokerConnectivitySnapshot, BrokerOutage, KafkaStreamsState } from '@kstreams/core';

/** Ready: RUNNING only. While starting or rebalancing tasks move and queries may miss; ERROR is down. */
export function readiness(state: KafkaStreamsState): { status: number; ready: boolean } {
  return state === 'RUNNING' ? { status: 200, ready: true } : { status: 503, ready: false };
}

/** Live: anything but ERROR and a finished shutdown (a rebalancing app is alive; restarting it helps nothing). */
export function liveness(state: KafkaStreamsState): { status: number; live: boolean } {
  const dead = state === 'ERROR' || state === 'PENDING_ERROR' || state === 'NOT_RUNNING';
  return dead ? { status: 503, live: false } : { status: 200, live: true };
}

/** An outage as JSON: ISO times, for people and for tools alike. */
export interface BrokerOutageJson {
  since: string;
  /** Absent while the outage goes on. */
  until?: string;
  durationMs: number;
  lastError: string;
  failures: number;
}

export interface BrokerHealth {
  reachable: boolean;
  outage?: BrokerOutageJson;
  lastOutage?: BrokerOutageJson;
}

function outageJson(o: BrokerOutage): BrokerOutageJson {
  return {
    since: new Date(o.since).toISOString(),
    ...(o.until !== undefined && { until: new Date(o.until).toISOString() }),
    durationMs: o.durationMs,
    lastError: o.lastError,
    failures: o.failures,
  };
}

export function brokerHealth(snapshot: BrokerConnectivitySnapshot): BrokerHealth {
  return {
    reachable: snapshot.reachable,
    ...(snapshot.outage && { outage: outageJson(snapshot.outage) }),
    ...(snapshot.lastOutage && { lastOutage: outageJson(snapshot.lastOutage) }),
  };
}

/**
 * Why the app is degraded though its state says otherwise: no broker answers (the app retries by
 * itself, so liveness stays OK while readiness says so, with the reason), or undefined.
 */
export function degradedReason(broker: BrokerHealth): string | undefined {
  const o = broker.outage;
  if (o === undefined) return undefined;
  return `no Kafka broker has answered since ${o.since} (${Math.round(o.durationMs / 1000)} s; last error: ${o.lastError}); the app retries by itself`;
}
