// The window and session stores' retention, shared by the windowed aggregations of grouped and
// cogrouped streams: Materialized's withRetention, which may not be shorter than what the windows
// need to stay open until they close.
import { TopologyError } from '../../errors.ts';
import type { SessionWindows } from '../session-windows.ts';
import { SlidingWindows } from '../sliding-windows.ts';
import type { TimeWindows } from '../time-windows.ts';

/** A time- or sliding-window store's retention and window size, the retention checked. */
export function windowStoreSpec(
  windows: TimeWindows | SlidingWindows,
  retention: number | undefined,
): { retentionMs: number; windowSizeMs: number } {
  const sliding = windows instanceof SlidingWindows;
  const windowSizeMs = sliding ? windows.timeDifferenceMs : windows.sizeMs;
  const retentionMs = retention ?? windows.retentionMs;
  if (retentionMs < windows.retentionMs) {
    const minimum = sliding ? 'twice the time difference plus grace' : 'the window size plus grace';
    throw new TopologyError(
      `Materialized retention (${retentionMs} ms) must be at least ${minimum} (${windows.retentionMs} ms)`,
    );
  }
  return { retentionMs, windowSizeMs };
}

/** A session store's retention, checked. */
export function sessionStoreRetention(windows: SessionWindows, retention: number | undefined): number {
  const retentionMs = retention ?? windows.retentionMs;
  if (retentionMs < windows.retentionMs) {
    throw new TopologyError(
      `Materialized retention (${retentionMs} ms) must be at least the inactivity gap plus grace (${windows.retentionMs} ms)`,
    );
  }
  return retentionMs;
}
