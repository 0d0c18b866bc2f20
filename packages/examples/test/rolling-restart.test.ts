// The rolling-restart demo's measure: each task's longest pause between two commits, read from
// the apps' "committed" log lines, and which instance held the task.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { CommitLog } from '../src/rolling-restart/commit-log.ts';

const line = (time: number, tasks: string[]) =>
  `${JSON.stringify({ level: 20, time, msg: 'committed', tasks })}\n`;

describe('CommitLog', () => {
  it('gives the longest pause reaching into a window, for tasks committed before and after it', () => {
    const log = new CommitLog();
    const warnings: string[] = [];
    const out = pino({ level: 'warn' }, { write: (l: string) => void warnings.push(l) });
    const streamA = log.streamFor(0, out);
    const streamB = log.streamFor(1, out);
    // Instance 0 commits 0_0 every 100 ms, with a 700 ms pause inside the window [1000, 2000].
    for (const t of [800, 900, 1000, 1700, 1800, 2100]) streamA.write(line(t, ['0_0']));
    // 0_1 stopped committing on instance 0 and came back on instance 1 only after the window.
    streamA.write(line(900, ['0_1']));
    streamB.write(line(2500, ['0_1']));
    // 0_2 never committed after the window: it is left out.
    streamA.write(line(900, ['0_2']));
    log.loggerFor(0, out).warn({ reason: 'x' }, 'something to see');
    log.loggerFor(0, out).info('dropped');
    const pauses = log.longestPauses(1000, 2000);
    expect(pauses.get('0_0')).toEqual({ ms: 700, instance: 0 });
    expect(pauses.get('0_1')).toEqual({ ms: 1600, instance: 1 });
    expect(pauses.has('0_2')).toBe(false);
    expect(log.firstCommitAfter(1, 1000)).toBe(2500);
    expect(log.firstCommitAfter(1, 3000)).toBeUndefined();
    // Warnings go on to the demo's logger, with the instance.
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ instance: 0, reason: 'x', msg: 'something to see' });
  });
});
