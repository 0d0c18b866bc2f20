// Scenario B's producer process: sends the workload and reports each acknowledged chunk, so the
// lab can SIGKILL it mid-batch and start another that sends the batch again.
import { Kafka, logLevel } from 'kafkajs';
import { proxiedSocketFactory } from '../../../../scripts/test/fault-proxy.ts';
import { childOptions, report } from '../child.ts';
import type { ProducerConfigId } from '../configs.ts';
import { runSource } from '../source.ts';
import { sequenceRecords, type Workload } from '../workload.ts';

interface Options {
  brokers: string[];
  proxyPort: number;
  config: ProducerConfigId;
  topic: string;
  workload: Workload;
  chunkSize: number;
}

const o = childOptions<Options>();
const kafka = new Kafka({
  clientId: 'lab-producer',
  brokers: o.brokers,
  logLevel: logLevel.NOTHING,
  socketFactory: proxiedSocketFactory(o.proxyPort),
});
const result = await runSource({
  kafka,
  config: o.config,
  topic: o.topic,
  records: sequenceRecords(o.workload),
  chunkSize: o.chunkSize,
  onChunk: (sent, chunk) => report('acked', { sent, chunk }),
});
report('done', result);
