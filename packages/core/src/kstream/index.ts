export type { Branched } from './branched-kstream.ts';
export { BranchedKStream } from './branched-kstream.ts';
export {
  CogroupedKStream,
  SessionWindowedCogroupedKStream,
  TimeWindowedCogroupedKStream,
} from './cogrouped-kstream.ts';
export { EmitStrategy } from './emit-strategy.ts';
export { GlobalKTable } from './global-ktable.ts';
export type { ValueJoiner, ValueJoinerWithKey } from './internals/value-joiner.ts';
export { JoinWindows } from './join-windows.ts';
export { type KeyValue, keyValue } from './key-value.ts';
export { KGroupedStream } from './kgrouped-stream.ts';
export { KGroupedTable } from './kgrouped-table.ts';
export { KStream } from './kstream.ts';
export { KStreamAsyncOperators } from './kstream-async.ts';
export { KTable } from './ktable.ts';
export type {
  Consumed,
  Grouped,
  Joined,
  Named,
  Produced,
  Repartitioned,
  StreamJoined,
} from './options.ts';
export { Materialized } from './options.ts';
export { SessionWindowedKStream } from './session-windowed-kstream.ts';
export { SessionWindows } from './session-windows.ts';
export { SlidingWindows } from './sliding-windows.ts';
export { StreamsBuilder } from './streams-builder.ts';
export {
  BufferConfig,
  type BufferFullStrategy,
  type EagerBufferConfig,
  type StrictBufferConfig,
  Suppressed,
} from './suppressed.ts';
export { TimeWindowedKStream } from './time-windowed-kstream.ts';
export { TimeWindows } from './time-windows.ts';
