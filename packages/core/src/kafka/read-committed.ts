// kafkajs 2.2.4 hands read_committed consumers records of aborted transactions. A fetch response
// lists the aborted transactions of the fetched range in the order they were aborted, and kafkajs
// walks that list as if it were sorted by first offset, starting at most one transaction per
// record. When two producers' aborted transactions interleave (two tasks writing to one
// repartition partition, or a transaction aborted after a later one), the records of one of them
// come through as if committed, and exactly_once produces duplicates. Found by the lost-acks
// test, whose reader saw the aborted first transaction's output; Kafka's own log dump showed the
// ABORT markers.
//
// The fix follows the Java consumer: sort by first offset, start every transaction whose first
// offset has been reached, stop one at its producer's abort marker. It runs on each decoded fetch
// response before kafkajs builds its batches: the records of aborted transactions are marked as
// control records, which kafkajs leaves out of a batch's messages but still counts when it moves
// past the batch, and the list is emptied so that kafkajs' own filter has nothing left to do.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

interface FetchedRecord {
  offset: string;
  key: Buffer | null;
  isControlRecord: boolean;
  batchContext?: { producerId: string; inTransaction: boolean };
}

export interface FetchedPartition {
  abortedTransactions?: Array<{ producerId: string; firstOffset: string }>;
  messages: FetchedRecord[];
}

/** Control record key of an abort marker: version 0, type 0 (a commit marker has type 1). */
const isAbortMarker = (key: Buffer | null) => key?.length === 4 && key.readInt32BE(0) === 0;

/** Marks the records of the partition's aborted transactions as control records. */
export function hideAbortedRecords(partition: FetchedPartition): void {
  const aborted = partition.abortedTransactions;
  if (!aborted || aborted.length === 0) return;
  const pending = aborted
    .map((t) => ({ producerId: t.producerId, firstOffset: BigInt(t.firstOffset) }))
    .sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
  const open = new Set<string>();
  let next = 0;
  for (const record of partition.messages) {
    const offset = BigInt(record.offset);
    while (next < pending.length && pending[next]!.firstOffset <= offset)
      open.add(pending[next++]!.producerId);
    const context = record.batchContext;
    if (!context?.inTransaction || !open.has(context.producerId)) continue;
    if (record.isControlRecord) {
      if (isAbortMarker(record.key)) open.delete(context.producerId);
      continue;
    }
    record.isControlRecord = true;
  }
  partition.abortedTransactions = [];
}

type FetchResponseModule = { parse: (data: unknown) => Promise<unknown>; [patched]?: true };
const patched = Symbol('kstreams read_committed fix');
let installed = 0;

/** The kafkajs copies loaded in this process (their package directories), else the one we resolve. */
function kafkajsRoots(require: NodeJS.Require): string[] {
  const loaded = Object.keys(require.cache)
    .filter((path) => /[\\/]kafkajs[\\/]index\.js$/.test(path))
    .map((path) => dirname(path));
  if (loaded.length > 0) return [...new Set(loaded)];
  try {
    return [dirname(require.resolve('kafkajs/package.json'))];
  } catch {
    return [];
  }
}

/**
 * Installs the fix into kafkajs' fetch response parsers, in every copy of kafkajs loaded in the
 * process. kafkajs looks a parser up on its module at every response, so this works also after
 * kafkajs was first used; it applies to every kafkajs client, which is what a read_committed
 * reader needs. Returns how many fetch parsers carry the fix so far (0 when kafkajs was bundled
 * into one file and its modules cannot be reached).
 */
export function installReadCommittedFix(): number {
  const require = createRequire(import.meta.url);
  for (const root of kafkajsRoots(require)) {
    // Fetch v4 is the first with aborted transactions; kafkajs 2.2.4 speaks up to v11.
    for (let version = 4; version <= 11; version++) {
      let mod: FetchResponseModule | undefined;
      try {
        mod = require(join(root, 'src', 'protocol', 'requests', 'fetch', `v${version}`, 'response.js'));
      } catch {
        continue;
      }
      if (!mod || typeof mod.parse !== 'function' || mod[patched]) continue;
      const parse = mod.parse;
      mod.parse = (data) => {
        const responses = (data as { responses?: Array<{ partitions?: FetchedPartition[] }> }).responses;
        for (const topic of responses ?? []) for (const p of topic.partitions ?? []) hideAbortedRecords(p);
        return parse(data);
      };
      mod[patched] = true;
      installed++;
    }
  }
  return installed;
}

/** Whether any kafkajs fetch parser carries the fix. */
export const readCommittedFixInstalled = () => installed > 0;
