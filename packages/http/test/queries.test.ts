import { describe, expect, it } from 'vitest';
import { parseRange } from '../src/index.ts';

describe('the time range of window and session queries', () => {
  it('takes epoch ms or ISO-8601 and defaults to all of time', () => {
    expect(parseRange({})).toEqual({ from: 0, to: Number.MAX_SAFE_INTEGER });
    expect(parseRange({ from: '1000', to: '2026-01-05T10:00:00Z' })).toEqual({
      from: 1000,
      to: Date.UTC(2026, 0, 5, 10),
    });
  });

  it('explains a bad time or an empty range', () => {
    expect(parseRange({ to: 'soon' })).toBe(
      'to must be epoch milliseconds or an ISO-8601 date-time such as 2026-01-05T10:00:00Z, got "soon"',
    );
    expect(parseRange({ from: '5', to: '4' })).toBe('from (5) must not be after to (4)');
  });
});
