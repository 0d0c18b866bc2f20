// What the runtime makes of kafkajs' errors, built with kafkajs' own error classes and wrapped the
// way kafkajs wraps them (after its retries, in transactions).
import {
  KafkaJSConnectionError,
  KafkaJSGroupCoordinatorNotFound,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
} from 'kafkajs';
import { describe, expect, it } from 'vitest';
import {
  isFencedError,
  isRefusedRecordsError,
  isRetriableError,
  retryWhileErrorType,
} from '../../src/kafka/error-kinds.ts';

const protocol = (type: string, retriable: boolean) =>
  new KafkaJSProtocolError(Object.assign(new Error(`broker says ${type}`), { type, code: 0, retriable }));
/** kafkajs' wrapping of an error after its own handling gave up. */
const wrapped = (cause: Error) => Object.assign(new KafkaJSNonRetriableError(cause), { cause });
const afterRetries = (cause: Error) =>
  new KafkaJSNumberOfRetriesExceeded(cause, { retryCount: 5, retryTime: 1000 });

describe('error kinds', () => {
  it('a record the broker refuses is refused however deeply kafkajs wrapped it', () => {
    expect(isRefusedRecordsError(protocol('MESSAGE_TOO_LARGE', false))).toBe(true);
    expect(isRefusedRecordsError(wrapped(protocol('RECORD_LIST_TOO_LARGE', false)))).toBe(true);
  });

  it('failures on the way or of the producer state are not refusals: they need a new producer', () => {
    const lost = afterRetries(new KafkaJSConnectionError('Closed connection'));
    expect(isRefusedRecordsError(lost)).toBe(false);
    expect(isRetriableError(lost)).toBe(true);
    expect(isRefusedRecordsError(protocol('OUT_OF_ORDER_SEQUENCE_NUMBER', false))).toBe(false);
    // kafkajs' own transaction state machine, stuck after a commit failed half-way.
    const stuck = new KafkaJSNonRetriableError(
      'Transaction state exception: Cannot call "beginTransaction" in state "COMMITTING"',
    );
    expect(isRefusedRecordsError(stuck)).toBe(false);
    expect(isRetriableError(stuck)).toBe(false);
  });

  it('a group coordinator that is not found (it moves while a broker restarts) is worth another try', () => {
    expect(
      isRetriableError(
        Reflect.construct(KafkaJSGroupCoordinatorNotFound, ['Failed to find group coordinator']),
      ),
    ).toBe(true);
    expect(isRetriableError(protocol('UNKNOWN_MEMBER_ID', false))).toBe(false);
  });

  it('fencing is recognised by type and by kafkajs’ message', () => {
    expect(isFencedError(protocol('INVALID_PRODUCER_EPOCH', false))).toBe(true);
    expect(isFencedError(wrapped(protocol('PRODUCER_FENCED', false)))).toBe(true);
    expect(isFencedError(protocol('NOT_LEADER_FOR_PARTITION', true))).toBe(false);
  });
});

describe('retryWhileErrorType', () => {
  const options = { timeoutMs: 2_000, backoffMs: 1, maxBackoffMs: 4 };

  it('tries again while the error, also wrapped by kafkajs, has the type; then returns the answer', async () => {
    const failures = [
      protocol('UNSTABLE_OFFSET_COMMIT', false),
      wrapped(protocol('UNSTABLE_OFFSET_COMMIT', false)),
    ];
    let calls = 0;
    const answer = await retryWhileErrorType(
      'UNSTABLE_OFFSET_COMMIT',
      async () => {
        calls++;
        const failure = failures.shift();
        if (failure) throw failure;
        return 42;
      },
      options,
    );
    expect(answer).toBe(42);
    expect(calls).toBe(3);
  });

  it('throws any other error at once', async () => {
    let calls = 0;
    const other = protocol('CONCURRENT_TRANSACTIONS', true);
    await expect(
      retryWhileErrorType(
        'UNSTABLE_OFFSET_COMMIT',
        async () => {
          calls++;
          throw other;
        },
        options,
      ),
    ).rejects.toBe(other);
    expect(calls).toBe(1);
  });

  it('gives up with the last error once the time is over', async () => {
    let calls = 0;
    const started = Date.now();
    await expect(
      retryWhileErrorType(
        'CONCURRENT_TRANSACTIONS',
        async () => {
          calls++;
          throw protocol('CONCURRENT_TRANSACTIONS', true);
        },
        { timeoutMs: 50, backoffMs: 5, maxBackoffMs: 10 },
      ),
    ).rejects.toThrow('CONCURRENT_TRANSACTIONS');
    expect(calls).toBeGreaterThan(2);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
