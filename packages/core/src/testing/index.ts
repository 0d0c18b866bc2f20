export {
  TestInputTopic,
  TestOutputTopic,
  type TestRecord,
  TopologyTestDriver,
  type TopologyTestDriverConfig,
} from './topology-test-driver.ts';
