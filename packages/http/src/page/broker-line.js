// The status page's line on Kafka connectivity (a module of its own, with no DOM, so that a unit
// test renders it): the outage going on with its start, duration and last error, or the last one
// with its start, end and duration, or that no outage was seen.
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const clock = (iso) => new Date(iso).toLocaleTimeString();

/** `broker` as in /status (absent from an instance of an older version: nothing to say). */
export function brokerText(broker) {
  if (!broker) return '';
  const o = broker.outage;
  if (o)
    return `Kafka unreachable since ${clock(o.since)} (${secs(o.durationMs)}, ${o.failures} failures) · last error: ${o.lastError}`;
  const l = broker.lastOutage;
  if (l)
    return `Kafka reachable · last outage ${clock(l.since)}–${clock(l.until)} (${secs(l.durationMs)}) · last error: ${l.lastError}`;
  return 'Kafka reachable · no outage seen';
}
