/**
 * The `kstreams` command (`verify`, `reset`, `lag`, `describe`) and `verifyTopic()`, its output check
 * as a function.
 *
 * @module @kstreams/cli
 */
export {
  type CheckedRecord,
  type CheckOptions,
  checkRecords,
  FINDING_KINDS,
  type Finding,
  type FindingKind,
  type VerifyReport,
} from './check.ts';
export { type Io, runCli } from './command.ts';
export { parseExpected } from './expected.ts';
export { formatReport } from './format.ts';
export { type RawRecord, type ReadOptions, readCommitted } from './read-topic.ts';
export { decodeValue, type Value, type ValueFormat } from './values.ts';
export { decodeRecords, type VerifyOptions, verifyTopic } from './verify.ts';
