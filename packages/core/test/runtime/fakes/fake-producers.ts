// Producers that keep what they were asked to do: the shared at_least_once one, a task's
// transactional one, and the thread's exactly_once_v2 one. A test makes a call fail by naming it.
import type { TopicPartitionOffset } from '../../../src/kafka/admin.ts';
import type { TaskProducer } from '../../../src/kafka/producers.ts';
import type { CollectedOutput } from '../../../src/processor/internals/record-collector.ts';
import type { SharedTaskProducer } from '../../../src/runtime/at-least-once.ts';
import type { GenerationOf, ThreadProducer } from '../../../src/runtime/thread-transaction.ts';

type Call = 'send' | 'commit' | 'abort' | 'initialize' | 'reset' | 'close' | 'connect';

class Recording {
  readonly calls: string[] = [];
  readonly failing = new Set<Call>();

  protected call(name: Call): void {
    this.calls.push(name);
    if (this.failing.has(name)) throw new Error(`${name} failed (fake producer)`);
  }
}

export class FakeTaskProducer extends Recording implements SharedTaskProducer {
  constructor(readonly transactional: boolean) {
    super();
  }

  async connect(): Promise<void> {
    this.call('connect');
  }

  async reset(): Promise<void> {
    this.call('reset');
  }

  async send(_output: CollectedOutput): Promise<TopicPartitionOffset[]> {
    this.call('send');
    return [];
  }

  async commitTransaction(): Promise<void> {
    this.call('commit');
  }

  async abortTransaction(): Promise<void> {
    this.call('abort');
  }

  async close(): Promise<void> {
    this.call('close');
  }
}

export class FakeThreadProducer extends Recording implements ThreadProducer {
  readonly transactionalId = 'app-fake-1';
  /** What each commit carried: the offsets and the group generation they were committed in. */
  readonly committed: Array<{ groupId: string; offsets: TopicPartitionOffset[]; generation: unknown }> = [];

  constructor(private readonly generation: GenerationOf) {
    super();
  }

  async initialize(): Promise<void> {
    this.call('initialize');
  }

  async commit(groupId: string, offsets: TopicPartitionOffset[]): Promise<void> {
    this.call('commit');
    this.committed.push({ groupId, offsets, generation: this.generation() });
  }

  async abort(): Promise<void> {
    this.call('abort');
  }

  async reset(): Promise<void> {
    this.call('reset');
  }

  async close(): Promise<void> {
    this.call('close');
  }

  forTask(): TaskProducer {
    return {
      transactional: true,
      send: async () => [],
      commitTransaction: () => Promise.reject(new Error('the thread commits')),
      abortTransaction: async () => {},
      close: async () => {},
    };
  }
}
