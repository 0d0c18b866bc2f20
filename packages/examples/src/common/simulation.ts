// What the examples' data generators share: a seedable random source, so that the same seed gives
// the same data (and the same expected output), and where the simulated time starts.

/** A small, seedable PRNG (mulberry32): numbers in [0, 1). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A start for `hours` of simulated time that end an hour before the current hour: brokers refuse
 * timestamps far in the future (log.message.timestamp.after.max.ms), and the generators' end-of-data
 * records come up to 40 minutes after the last event.
 */
export function simulatedStart(hours: number, now = Date.now()): number {
  return Math.floor(now / 3_600_000) * 3_600_000 - (hours + 1) * 3_600_000;
}
