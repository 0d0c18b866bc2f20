// Every change core makes to kafkajs 2.2.4, installed in one place and in order, and one report of
// which took effect (kafkajsCapabilities). Only this module and the patches it lists reach into
// kafkajs' files (`kafkajs/src/...`); the architecture test holds everyone else to kafkajs' public
// API. Each patch degrades on its own when kafkajs' files cannot be reached (kafkajs bundled into
// one file, or loaded before core): the runtime asks the capabilities what to do then.
//
// The order matters for the first three: kafkajs keeps the modules they replace from its own load,
// so they must be in Node's module cache before anything loads kafkajs; every module of kafka/ that
// loads a kafkajs value imports this one first. The request versions (KIP-447) and the fetch hooks
// are looked up by kafkajs at each call, so they work whenever they are installed.
import './fetch-decoding.ts';
import './produce-encoding.ts';
import './group-generation.ts';
import './stable-offset-fetch.ts';
import './txn-offset-commit.ts';
import './producer-grouping.ts';
import './fetch-lag.ts';
import { fetchDecodingInstalled } from './fetch-decoding.ts';
import { fetchLagInstalled } from './fetch-lag.ts';
import { groupGenerationTracked } from './group-generation.ts';
import { produceEncodingInstalled } from './produce-encoding.ts';
import { linearGroupingInstalled } from './producer-grouping.ts';
import { installReadCommittedFix, readCommittedFixInstalled } from './read-committed.ts';
import { stableOffsetFetchInstalled } from './stable-offset-fetch.ts';
import { txnOffsetCommitV3Installed } from './txn-offset-commit.ts';

// Every read_committed consumer of the app (input, repartition topics, changelog restore) and of
// the user's own code in this process needs it.
installReadCommittedFix();

/** Which of core's kafkajs patches are installed in this process. */
export interface KafkajsCapabilities {
  /** The fetched record batches are decoded by core (fetch-decoding.ts). */
  fetchDecoding: boolean;
  /** Core writes the produce request's record batches, encoded at the sink (produce-encoding.ts). */
  encodedProduce: boolean;
  /** JoinGroup tells the generation of the group a member joined (group-generation.ts). */
  groupGeneration: boolean;
  /** OffsetFetch v7, which waits for pending transactional offsets (stable-offset-fetch.ts, KIP-447). */
  stableOffsetFetch: boolean;
  /** TxnOffsetCommit v3, which carries the group generation (txn-offset-commit.ts, KIP-447). */
  txnOffsetCommitV3: boolean;
  /** A send's messages are grouped per partition in linear time (producer-grouping.ts). */
  linearGrouping: boolean;
  /** Every fetch reports each partition's lag, with or without records (fetch-lag.ts). */
  fetchLag: boolean;
  /** read_committed fetches hide aborted transactions' records (read-committed.ts). */
  readCommitted: boolean;
}

export function kafkajsCapabilities(): KafkajsCapabilities {
  return {
    fetchDecoding: fetchDecodingInstalled(),
    encodedProduce: produceEncodingInstalled(),
    groupGeneration: groupGenerationTracked(),
    stableOffsetFetch: stableOffsetFetchInstalled(),
    txnOffsetCommitV3: txnOffsetCommitV3Installed(),
    linearGrouping: linearGroupingInstalled(),
    fetchLag: fetchLagInstalled(),
    readCommitted: readCommittedFixInstalled(),
  };
}

/**
 * Installs the read_committed fix into the kafkajs copies loaded since (it patches every copy in
 * the process; the other patches apply to core's own copy, once).
 */
export function installIntoLoadedKafkajs(): void {
  installReadCommittedFix();
}
