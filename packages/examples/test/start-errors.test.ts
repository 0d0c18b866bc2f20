// What a new user sees when the word-count command cannot start: one line saying what to change,
// no stack. Neither case needs a broker (nothing listens at the addresses used).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../../scripts/test/free-port.ts';

const root = join(import.meta.dirname, '..', '..', '..');

function wordCount(args: string[]): Promise<{ status: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(
      join(root, 'node_modules', '.bin', 'tsx'),
      ['packages/examples/src/word-count/main.ts', ...args],
      {
        cwd: root,
        env: { ...process.env, KAFKA_BROKERS: '', LOG_LEVEL: 'info' },
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('exit', (status) => resolve({ status, stderr, ms: Date.now() - started }));
  });
}

describe('word-count start errors', () => {
  it('an unreachable broker: the addresses and the flag and variable that set them, no stack', async () => {
    const brokers = `127.0.0.1:${await freePort()}`;
    const result = await wordCount(['--brokers', brokers, '--port', '0']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      `word-count: No Kafka broker answered at ${brokers} (Connection error: connect ECONNREFUSED ${brokers}). Start Kafka there, or set --brokers or KAFKA_BROKERS`,
    );
    expect(result.stderr).not.toMatch(/KafkaJSNumberOfRetriesExceeded|\n\s+at /);
    // The retries' connection errors are not logged as errors on the way.
    expect(result.stderr).not.toMatch(/"level":50|ERROR/);
  }, 60_000);

  it('a --state-dir that is a file is a setting error (exit 2) found before Kafka is contacted', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kstreams-statedir-')), 'not-a-dir');
    writeFileSync(file, 'x');
    for (const [stateDir, reason] of [
      [file, 'is a file, not a directory'],
      [join(file, 'sub'), 'lies under a file'],
    ] as const) {
      // Nothing listens at the brokers: had the app contacted them first, it would fail differently.
      const result = await wordCount(['--brokers', '127.0.0.1:1', '--port', '0', '--state-dir', stateDir]);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain(
        `word-count: --state-dir (STATE_DIR) ${stateDir} ${reason}: set --state-dir (STATE_DIR) to a directory this process can write`,
      );
      expect(result.ms).toBeLessThan(8_000);
    }
  }, 60_000);
});
