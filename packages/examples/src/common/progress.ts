// The demo's progress bar, drawn by cli-progress: redrawn in place at a terminal, else printed
// every `plainEveryMs` as its own line so that CI logs stay readable.
import { SingleBar } from 'cli-progress';

const STEPS = 1_000;

export class ProgressLine {
  private readonly bar: SingleBar;
  private started = false;

  constructor(out: NodeJS.WriteStream = process.stdout, plainEveryMs = 5_000) {
    this.bar = new SingleBar({
      stream: out,
      format: '[{bar}] {percent}% {text}',
      barsize: 30,
      barCompleteChar: '#',
      barIncompleteChar: '-',
      hideCursor: false,
      noTTYOutput: true,
      notTTYSchedule: plainEveryMs,
      fps: 10,
    });
  }

  update(fraction: number, text: string): void {
    const clamped = Math.min(1, Math.max(0, fraction));
    const payload = {
      text,
      percent: Math.floor(clamped * 100)
        .toString()
        .padStart(3),
    };
    const value = Math.round(clamped * STEPS);
    if (!this.started) {
      this.started = true;
      this.bar.start(STEPS, value, payload);
    } else this.bar.update(value, payload);
  }

  /** Leaves the last drawn line in place and moves to the next one. */
  done(fraction: number, text: string): void {
    this.update(fraction, text);
    this.bar.stop();
    this.started = false;
  }
}
