// Which task errors stop the thread at once (no rollback-and-retry loop), and how a full disk
// under a store is recognised.
import { StoreDiskFullError } from '@kstreams/state-store';
import { describe, expect, it } from 'vitest';
import { DeserializationError, ProductionError, RecordSendError } from '../../src/errors.ts';
import { isFatalTaskError } from '../../src/runtime/fatal-errors.ts';

const levelNoSpace = () =>
  Object.assign(new Error('IO error: /state/app/0_0/counts/000003.log: No space left on device'), {
    code: 'LEVEL_IO_ERROR',
  });

describe('StoreDiskFullError.wrap', () => {
  it("recognises LevelDB's and the file system's no-space errors, naming the location", () => {
    const wrapped = StoreDiskFullError.wrap(levelNoSpace(), '/state/app/0_0/counts');
    expect(wrapped).toBeInstanceOf(StoreDiskFullError);
    expect((wrapped as Error).message).toMatch(
      /^No space left on device writing \/state\/app\/0_0\/counts: .*set stateDir/,
    );
    const fsError = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(StoreDiskFullError.wrap(fsError, '/state/app/0_0/.checkpoint')).toBeInstanceOf(StoreDiskFullError);
  });

  it('leaves any other error as it is', () => {
    const other = Object.assign(new Error('IO error: Permission denied'), { code: 'LEVEL_IO_ERROR' });
    expect(StoreDiskFullError.wrap(other, '/x')).toBe(other);
  });
});

describe('isFatalTaskError', () => {
  it('a full disk, also wrapped, a ProductionError and a DeserializationError are fatal', () => {
    const full = new StoreDiskFullError('/state', { cause: levelNoSpace() });
    expect(isFatalTaskError(full)).toBe(true);
    expect(isFatalTaskError(new Error('commit failed', { cause: full }))).toBe(true);
    const send = new RecordSendError('out', 0, 'MESSAGE_TOO_LARGE', false, { cause: new Error('x') });
    expect(isFatalTaskError(new ProductionError('0_0', 'fail', { cause: send }))).toBe(true);
    expect(
      isFatalTaskError(new DeserializationError({ topic: 't', partition: 0, offset: 1, part: 'value' })),
    ).toBe(true);
  });

  it('what a retry may cure is not: a processor error, a broker away, a record send error itself', () => {
    expect(isFatalTaskError(new Error('boom'))).toBe(false);
    expect(
      isFatalTaskError(Object.assign(new Error('Connection error'), { name: 'KafkaJSConnectionError' })),
    ).toBe(false);
    expect(
      isFatalTaskError(new RecordSendError('out', 0, 'REQUEST_TIMED_OUT', true, { cause: new Error('x') })),
    ).toBe(false);
  });
});
