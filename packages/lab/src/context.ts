// What every cell of a lab run shares: the broker, the fault proxy every client of a cell goes
// through, topic creation under one prefix (deleted at the end), and the workload.
import { randomBytes } from 'node:crypto';
import { type Admin, Kafka, type KafkaConfig, logLevel } from 'kafkajs';
import { FaultProxy } from '../../../scripts/test/fault-proxy.ts';
import type { Workload } from './workload.ts';

export interface LabContext {
  brokers: string[];
  proxy: FaultProxy;
  workload: Workload;
  /** The session timeout of the copiers and apps: how long a killed member holds up a restart. */
  sessionTimeoutMs: number;
  /** Prefix of every topic, group and application id of this run. */
  prefix: string;
  /** A client straight to the broker (for setup and reading results), or through the proxy. */
  kafka(through?: 'proxy'): Kafka;
  createTopic(name: string, partitions?: number): Promise<string>;
  /** Deletes every topic of this run (internal topics of the kstreams apps included). */
  cleanUp(): Promise<void>;
  close(): Promise<void>;
}

export async function openLab(
  brokers: string[],
  workload: Workload,
  { sessionTimeoutMs = 6000 } = {},
): Promise<LabContext> {
  const prefix = `lab-${Date.now().toString(36)}-${randomBytes(2).toString('hex')}`;
  const proxy = new FaultProxy(0);
  await proxy.start();
  const kafka = (through?: 'proxy') => {
    const config: KafkaConfig = { clientId: 'kstreams-lab', brokers, logLevel: logLevel.NOTHING };
    if (through === 'proxy') config.socketFactory = proxy.socketFactory();
    return new Kafka(config);
  };
  let admin: Admin | undefined;
  const getAdmin = async () => {
    if (!admin) {
      admin = kafka().admin();
      await admin.connect();
    }
    return admin;
  };
  let n = 0;
  return {
    brokers,
    proxy,
    workload,
    sessionTimeoutMs,
    prefix,
    kafka,
    async createTopic(name, partitions = 3) {
      const topic = `${prefix}-${++n}-${name}`;
      await (await getAdmin()).createTopics({
        topics: [{ topic, numPartitions: partitions }],
        waitForLeaders: true,
      });
      return topic;
    },
    async cleanUp() {
      const a = await getAdmin();
      const mine = (await a.listTopics()).filter((t) => t.startsWith(prefix));
      if (mine.length > 0) await a.deleteTopics({ topics: mine }).catch(() => {});
    },
    async close() {
      await admin?.disconnect();
      await proxy.close();
    },
  };
}
