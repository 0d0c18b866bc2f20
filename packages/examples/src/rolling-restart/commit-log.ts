// What the rolling-restart demo measures: every commit of every task, from the apps' own log
// ("committed", at debug level, with the task ids), and the longest pause between two commits of
// a task over a time window.
import { type Logger, pino } from 'pino';

export interface TaskCommit {
  at: number;
  instance: number;
}

export class CommitLog {
  /** Commits by task id, in time order. */
  readonly byTask = new Map<string, TaskCommit[]>();

  /**
   * A logger for instance `instance`: its "committed" lines are recorded, its warnings and errors
   * go on to `out` (the demo's own logger), everything else is dropped.
   */
  loggerFor(instance: number, out: Logger): Logger {
    return pino({ level: 'debug', base: { instance } }, this.streamFor(instance, out));
  }

  /** The destination of `loggerFor`'s logger: one JSON log line per write. */
  streamFor(instance: number, out: Logger): { write(line: string): void } {
    return {
      write: (line: string) => {
        if (line.includes('"msg":"committed"')) {
          const e = JSON.parse(line) as { time: number; tasks?: string[] };
          for (const task of e.tasks ?? []) {
            const list = this.byTask.get(task) ?? [];
            list.push({ at: e.time, instance });
            this.byTask.set(task, list);
          }
          return;
        }
        const { level, time: _t, pid: _p, hostname: _h, msg = '', ...fields } = JSON.parse(line);
        if (level >= 50) out.error(fields, msg);
        else if (level >= 40) out.warn(fields, msg);
      },
    };
  }

  /** The first commit of any task after `from` by `instance`, if there was one. */
  firstCommitAfter(instance: number, from: number): number | undefined {
    let first: number | undefined;
    for (const commits of this.byTask.values())
      for (const c of commits)
        if (c.instance === instance && c.at > from && (first === undefined || c.at < first)) first = c.at;
    return first;
  }

  /**
   * For each task that committed before and after [from, to]: the longest time between two of its
   * consecutive commits that reaches into the window, and the instance that made its last commit.
   */
  longestPauses(from: number, to: number): Map<string, { ms: number; instance: number }> {
    const pauses = new Map<string, { ms: number; instance: number }>();
    for (const [task, commits] of this.byTask) {
      if (!commits.some((c) => c.at < from) || !commits.some((c) => c.at > to)) continue;
      let ms = 0;
      for (let i = 1; i < commits.length; i++)
        if (commits[i]!.at >= from && commits[i - 1]!.at <= to)
          ms = Math.max(ms, commits[i]!.at - commits[i - 1]!.at);
      pauses.set(task, { ms, instance: commits.at(-1)!.instance });
    }
    return pauses;
  }
}
