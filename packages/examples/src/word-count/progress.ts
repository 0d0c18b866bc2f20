/**
 * One line of progress: redrawn in place with `\r` at a terminal, else printed every
 * `plainEveryMs` as its own line so that CI logs stay readable.
 */
export class ProgressLine {
  private lastPlain = 0;
  private drawn = false;

  constructor(
    private readonly out: NodeJS.WriteStream = process.stdout,
    private readonly plainEveryMs = 5_000,
  ) {}

  get tty(): boolean {
    return Boolean(this.out.isTTY);
  }

  update(fraction: number, text: string): void {
    const line = `${bar(fraction, 30)} ${Math.floor(Math.min(1, Math.max(0, fraction)) * 100)
      .toString()
      .padStart(3)}% ${text}`;
    if (this.tty) {
      const width = this.out.columns ?? 120;
      this.out.write(`\r${line.slice(0, width - 1).padEnd(width - 1)}`);
      this.drawn = true;
    } else if (Date.now() - this.lastPlain >= this.plainEveryMs) {
      this.lastPlain = Date.now();
      this.out.write(`${line}\n`);
    }
  }

  /** Leaves the last drawn line in place and moves to the next one. */
  done(fraction: number, text: string): void {
    this.lastPlain = 0;
    this.update(fraction, text);
    if (this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}

export function bar(fraction: number, width: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}
