/**
 * Maps key bytes to a string whose JavaScript ordering (`<`) is the unsigned byte order of
 * `Buffer.compare`: latin1 turns each byte into one UTF-16 code unit of the same value. This lets
 * in-memory structures use `Map` lookups and plain string comparison.
 */
export function byteOrderKey(key: Buffer): string {
  return key.toString('latin1');
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether `from <= key <= to` in byte order; an undefined bound is open. */
export function inRange(key: string, from: string | undefined, to: string | undefined): boolean {
  return (from === undefined || key >= from) && (to === undefined || key <= to);
}
