// Where `kstreams reset` moves the input offsets: Kafka's reset tool's --to-datetime
// (yyyy-MM-ddTHH:mm:SS.sss, UTC unless an offset is given) and --by-duration (ISO-8601, PT5M).
export type ResetTarget = { kind: 'earliest' } | { kind: 'latest' } | { kind: 'timestamp'; ms: number };

export function parseDatetime(s: string): number {
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`);
  if (Number.isNaN(ms)) throw new Error(`--to-datetime: '${s}' is not yyyy-MM-ddTHH:mm:SS.sss`);
  return ms;
}

/** ISO-8601 duration (days and time parts, as Java's Duration.parse) in milliseconds. */
export function parseDuration(s: string): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(s);
  if (!m || s.toUpperCase() === 'P' || s.toUpperCase().endsWith('T')) {
    throw new Error(`--by-duration: '${s}' is not an ISO-8601 duration such as PT5M or P1DT2H`);
  }
  const [, d = '0', h = '0', min = '0', sec = '0'] = m;
  return ((Number(d) * 24 + Number(h)) * 60 + Number(min)) * 60_000 + Number(sec) * 1000;
}
