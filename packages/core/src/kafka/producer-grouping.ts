// kafkajs 2.2.4 groups the messages of a send per partition with `[...current, message]` for
// every message, which copies each partition's list once per message: quadratic in the messages
// per partition of one send. In the word-count benchmark's CPU profile that grouping was about
// 9% of the app's self time, plus the garbage it leaves. This installs a linear grouping with the
// same result (an object of arrays keyed by partition, messages in their order).
//
// kafkajs' sendMessages.js keeps the grouping function it required at load, so the replacement
// must be in Node's module cache before kafkajs is loaded (kafkajs-patches.ts installs it so).
// When kafkajs was loaded earlier (the application imported it before @kstreams/core) or bundled
// into one file, nothing changes: only the speed-up is lost.
import { installModule, loadedExports, resolveKafkajsModule } from './kafkajs-modules.ts';

interface GroupArgs {
  topic: string;
  partitionMetadata: unknown[];
  messages: unknown[];
  partitioner: (args: { topic: string; partitionMetadata: unknown[]; message: unknown }) => number;
}

/** kafkajs' groupMessagesPerPartition, in linear time. */
export function groupMessagesPerPartition({
  topic,
  partitionMetadata,
  messages,
  partitioner,
}: GroupArgs): Record<number, unknown[]> {
  const result: Record<number, unknown[]> = {};
  if (partitionMetadata.length === 0) return result;
  for (const message of messages) {
    const partition = partitioner({ topic, partitionMetadata, message });
    const list = result[partition];
    if (list === undefined) result[partition] = [message];
    else list.push(message);
  }
  return result;
}

let installed = false;

function install(): void {
  const path = resolveKafkajsModule('kafkajs/src/producer/groupMessagesPerPartition.js');
  if (path === undefined) return;
  const loaded = loadedExports(path);
  if (loaded !== undefined) {
    installed = loaded === groupMessagesPerPartition;
    return;
  }
  installModule(path, groupMessagesPerPartition);
  installed = true;
}

install();

/** Whether kafkajs' producer in this process uses the linear grouping. */
export const linearGroupingInstalled = () => installed;
