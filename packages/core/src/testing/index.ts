/**
 * The `TopologyTestDriver`: a topology tested without a broker, as Kafka Streams' test-utils.
 *
 * @module @kstreams/core/testing
 */
export type { DeserializationHandlerResponse, InputRecord } from '../processor/internals/records.ts';
export type { ValueAndTimestamp } from '../state/value-and-timestamp.ts';
export { TestInputTopic, TestOutputTopic, type TestRecord } from './test-topics.ts';
export { TopologyTestDriver, type TopologyTestDriverConfig } from './topology-test-driver.ts';
