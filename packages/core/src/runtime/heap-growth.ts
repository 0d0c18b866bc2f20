import { setFlagsFromString } from 'node:v8';
import type { Logger } from 'pino';

const FLAG = 'heap-growing-percent';

/**
 * Whether node was started with V8's `--heap-growing-percent`: the user's own choice then wins
 * over the config's. (Node refuses the flag in NODE_OPTIONS, so the command line is the one place.)
 */
export function heapGrowthSetByNode(execArgv: readonly string[] = process.execArgv): boolean {
  // V8 takes both spellings, --heap-growing-percent and --heap_growing_percent.
  return execArgv.some((arg) => arg.replace(/_/g, '-').startsWith(`--${FLAG}`));
}

let applied: number | undefined;

/**
 * Sets V8's heap growing factor for the whole process to 1 + percent / 100: how far the old
 * generation may grow past what a full collection left alive before the next one. V8 picks up to
 * 4x when it sees objects promoted much faster than it can mark them, which is what a stream
 * processor does all the time (every record and buffered write of a commit interval outlives two
 * scavenges), so its heap settled at about 4x the live data. V8 reads the flag at each full
 * collection, so setting it at start takes effect at once. Returns whether the flag was set.
 */
export function applyHeapGrowth(percent: number, logger: Logger): boolean {
  if (percent === 0 || applied === percent) return false;
  if (heapGrowthSetByNode()) {
    logger.debug(`heapGrowingPercent ${percent} not applied: node was started with --${FLAG}`);
    return false;
  }
  setFlagsFromString(`--${FLAG}=${percent}`);
  applied = percent;
  logger.info(
    `V8 heap growing factor set to ${1 + percent / 100} (heapGrowingPercent ${percent}; 0 leaves V8's own)`,
  );
  return true;
}
