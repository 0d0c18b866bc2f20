// What the StreamsUncaughtExceptionHandler's answer does, for a stream thread and for the global
// thread (which Kafka Streams cannot replace: REPLACE_THREAD there stops the client).
import { describe, expect, it } from 'vitest';
import {
  askUncaughtHandler,
  type StreamThreadExceptionResponse,
} from '../../src/runtime/uncaught-exceptions.ts';

function logger() {
  const lines: string[] = [];
  return { lines, error: (_: unknown, message?: string) => void lines.push(String(message)) };
}

describe('askUncaughtHandler', () => {
  const error = new Error('boom');
  const answers: StreamThreadExceptionResponse[] = [
    'REPLACE_THREAD',
    'SHUTDOWN_CLIENT',
    'SHUTDOWN_APPLICATION',
  ];

  it('a stream thread gets what the handler answers, and the handler sees the error', () => {
    for (const answer of answers) {
      const seen: Error[] = [];
      const log = logger();
      const handler = (e: Error) => {
        seen.push(e);
        return answer;
      };
      const got = askUncaughtHandler(handler, error, log as never, 'stream');
      expect(got).toBe(answer);
      expect(seen).toEqual([error]);
    }
  });

  it('the global thread: REPLACE_THREAD becomes SHUTDOWN_CLIENT, saying why', () => {
    const log = logger();
    expect(askUncaughtHandler(() => 'REPLACE_THREAD', error, log as never, 'global')).toBe('SHUTDOWN_CLIENT');
    expect(log.lines.join('\n')).toMatch(/global stream thread failed and cannot be replaced/);
    expect(askUncaughtHandler(() => 'SHUTDOWN_APPLICATION', error, logger() as never, 'global')).toBe(
      'SHUTDOWN_APPLICATION',
    );
  });

  it('a handler that throws or answers nonsense shuts the client down', () => {
    const log = logger();
    expect(
      askUncaughtHandler(
        () => {
          throw new Error('handler bug');
        },
        error,
        log as never,
        'stream',
      ),
    ).toBe('SHUTDOWN_CLIENT');
    expect(askUncaughtHandler(() => 'RESTART' as never, error, log as never, 'global')).toBe(
      'SHUTDOWN_CLIENT',
    );
    expect(log.lines).toHaveLength(2);
  });
});
