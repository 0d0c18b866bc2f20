import type {
  FixedKeyProcessor,
  FixedKeyProcessorContext,
  Processor,
  ProcessorContext,
} from '../../processor/processor.ts';
import { FixedKeyRecord, type Record } from '../../processor/record.ts';
import type { KeyValue } from '../key-value.ts';

type Ctx = ProcessorContext<unknown, unknown>;

/** The stateless KStream operators: one small processor each, forwarding to all children. */
abstract class StatelessProcessor implements Processor<unknown, unknown, unknown, unknown> {
  protected ctx!: Ctx;
  init(context: Ctx): void {
    this.ctx = context;
  }
  abstract process(record: Record<unknown, unknown>): void;
}

export class PassThroughProcessor extends StatelessProcessor {
  process(record: Record<unknown, unknown>): void {
    this.ctx.forward(record);
  }
}

export class FilterProcessor extends StatelessProcessor {
  constructor(
    private readonly predicate: (key: unknown, value: unknown) => boolean,
    private readonly negate: boolean,
  ) {
    super();
  }
  process(record: Record<unknown, unknown>): void {
    if (Boolean(this.predicate(record.key, record.value)) !== this.negate) this.ctx.forward(record);
  }
}

export class MapProcessor extends StatelessProcessor {
  constructor(private readonly mapper: (key: unknown, value: unknown) => KeyValue<unknown, unknown>) {
    super();
  }
  process(record: Record<unknown, unknown>): void {
    const kv = this.mapper(record.key, record.value);
    this.ctx.forward(record.withKey(kv.key).withValue(kv.value));
  }
}

export class MapValuesProcessor extends StatelessProcessor {
  constructor(private readonly mapper: (value: unknown, key: unknown) => unknown) {
    super();
  }
  process(record: Record<unknown, unknown>): void {
    this.ctx.forward(record.withValue(this.mapper(record.value, record.key)));
  }
}

export class FlatMapProcessor extends StatelessProcessor {
  constructor(
    private readonly mapper: (key: unknown, value: unknown) => Iterable<KeyValue<unknown, unknown>>,
  ) {
    super();
  }
  process(record: Record<unknown, unknown>): void {
    for (const kv of this.mapper(record.key, record.value))
      this.ctx.forward(record.withKey(kv.key).withValue(kv.value));
  }
}

export class FlatMapValuesProcessor extends StatelessProcessor {
  constructor(private readonly mapper: (value: unknown, key: unknown) => Iterable<unknown>) {
    super();
  }
  process(record: Record<unknown, unknown>): void {
    for (const value of this.mapper(record.value, record.key)) this.ctx.forward(record.withValue(value));
  }
}

export class SelectKeyProcessor extends StatelessProcessor {
  constructor(private readonly selector: (key: unknown, value: unknown) => unknown) {
    super();
  }
  process(record: Record<unknown, unknown>): void {
    this.ctx.forward(record.withKey(this.selector(record.key, record.value)));
  }
}

/** Runs an action, then forwards (peek); with no children it is foreach. */
export class PeekProcessor extends StatelessProcessor {
  constructor(private readonly action: (key: unknown, value: unknown) => void) {
    super();
  }
  process(record: Record<unknown, unknown>): void {
    this.action(record.key, record.value);
    this.ctx.forward(record);
  }
}

/** Drops records without a key before a repartition topic: grouping needs a key. */
export class DropNullKeyProcessor extends StatelessProcessor {
  process(record: Record<unknown, unknown>): void {
    if (record.key !== null && record.key !== undefined) this.ctx.forward(record);
  }
}

/** split(): the first branch whose predicate matches gets the record, else the default branch. */
export class BranchProcessor extends StatelessProcessor {
  constructor(
    private readonly branches: ReadonlyArray<{
      predicate: (key: unknown, value: unknown) => boolean;
      child: string;
    }>,
    private readonly defaultChild: () => string | undefined,
  ) {
    super();
  }
  process(record: Record<unknown, unknown>): void {
    for (const branch of this.branches) {
      if (branch.predicate(record.key, record.value)) {
        this.ctx.forward(record, branch.child);
        return;
      }
    }
    const fallback = this.defaultChild();
    if (fallback !== undefined) this.ctx.forward(record, fallback);
  }
}

/** Runs a FixedKeyProcessor (processValues): records keep their key whatever it forwards. */
export class FixedKeyProcessorAdapter implements Processor<unknown, unknown, unknown, unknown> {
  constructor(private readonly inner: FixedKeyProcessor<unknown, unknown, unknown>) {}

  init(context: Ctx): void {
    const fixed: FixedKeyProcessorContext<unknown, unknown> = {
      get applicationId() {
        return context.applicationId;
      },
      get taskId() {
        return context.taskId;
      },
      forward: (record, childName) =>
        context.forward(record as unknown as Record<unknown, unknown>, childName),
      getStateStore: (name) => context.getStateStore(name),
      schedule: (interval, type, punctuator) => context.schedule(interval, type, punctuator),
      recordMetadata: () => context.recordMetadata(),
      commit: () => context.commit(),
      currentStreamTimeMs: () => context.currentStreamTimeMs(),
      currentSystemTimeMs: () => context.currentSystemTimeMs(),
    };
    this.inner.init?.(fixed);
  }

  process(record: Record<unknown, unknown>): void | Promise<void> {
    return this.inner.process(new FixedKeyRecord(record.key, record.value, record.timestamp, record.headers));
  }

  close(): void | Promise<void> {
    return this.inner.close?.();
  }
}
