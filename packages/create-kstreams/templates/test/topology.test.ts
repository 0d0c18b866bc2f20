import { Serdes } from '@kstreams/core';
import { TopologyTestDriver } from '@kstreams/core/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { COUNTS_STORE, wordCountTopology } from '../src/topology.js';

let driver: TopologyTestDriver;
beforeEach(() => {
  driver = new TopologyTestDriver(wordCountTopology('text-input', 'word-counts'));
});
afterEach(() => driver.close());

it('counts each word, case-insensitively, and writes every new count', async () => {
  const input = driver.createInputTopic('text-input', Serdes.String(), Serdes.String());
  const output = driver.createOutputTopic('word-counts', Serdes.String(), Serdes.Long());

  await input.pipeInput(null, 'Hello Kafka Streams');
  await input.pipeInput(null, 'hello, kstreams!');

  expect(output.readKeyValuesToList()).toEqual([
    { key: 'hello', value: 1 },
    { key: 'kafka', value: 1 },
    { key: 'streams', value: 1 },
    { key: 'hello', value: 2 },
    { key: 'kstreams', value: 1 },
  ]);
  expect(driver.getKeyValueStore<string, number>(COUNTS_STORE).get('hello')).toBe(2);
});

it('writes nothing for a line without words', async () => {
  const input = driver.createInputTopic('text-input', Serdes.String(), Serdes.String());
  await input.pipeInput(null, ' -- ... ');
  expect(driver.createOutputTopic('word-counts', Serdes.String(), Serdes.Long()).isEmpty()).toBe(true);
});
