// Readiness and liveness from the app's state, as a load balancer or Kubernetes probe reads them.
import type { KafkaStreamsState } from '@kstreams/core';

/** Ready: RUNNING only. While starting or rebalancing tasks move and queries may miss; ERROR is down. */
export function readiness(state: KafkaStreamsState): { status: number; ready: boolean } {
  return state === 'RUNNING' ? { status: 200, ready: true } : { status: 503, ready: false };
}

/** Live: anything but ERROR and a finished shutdown (a rebalancing app is alive; restarting it helps nothing). */
export function liveness(state: KafkaStreamsState): { status: number; live: boolean } {
  const dead = state === 'ERROR' || state === 'PENDING_ERROR' || state === 'NOT_RUNNING';
  return dead ? { status: 503, live: false } : { status: 200, live: true };
}
