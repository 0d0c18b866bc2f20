// Interactive queries over the `counts` store: a word's count from this instance's tasks (the
// route forwards to the owner through @kstreams/http), and the most frequent words gathered from
// every instance.
import { type KafkaStreams, Serdes } from '@kstreams/core';
import { FORWARDED_HEADER } from '@kstreams/http';
import { keysForPartitions } from '../common/partitions.ts';
import { COUNTS_STORE } from './topology.ts';

/** What the queries need of a running app; KafkaStreams has exactly these members. */
export type QueryableStreams = Pick<KafkaStreams, 'state' | 'store' | 'queryMetadataForKey'>;

/** An HTTP answer: status, JSON body, extra headers. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** GETs `path` from another instance (`host:port`) and returns its status and parsed JSON body. */
export type PeerClient = (host: string, path: string) => Promise<Reply>;

export interface WordCount {
  word: string;
  count: number;
}

export const MAX_TOP = 1_000;

const keySerde = Serdes.String();

export const fetchPeer: PeerClient = async (host, path) => {
  const response = await fetch(`http://${host}${path}`, {
    headers: { [FORWARDED_HEADER]: '1' },
    signal: AbortSignal.timeout(5_000),
  });
  return { status: response.status, body: await response.json() };
};

/** The n entries with the highest counts, ties broken by word, in one pass with O(n) memory. */
export async function topN(
  entries: AsyncIterable<WordCount> | Iterable<WordCount>,
  n: number,
): Promise<WordCount[]> {
  const before = (a: WordCount, b: WordCount) =>
    a.count > b.count || (a.count === b.count && a.word < b.word);
  const top: WordCount[] = [];
  for await (const entry of entries) {
    if (top.length === n && !before(entry, top[n - 1]!)) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(top[mid]!, entry)) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, { word: entry.word, count: entry.count });
    if (top.length > n) top.pop();
  }
  return top;
}

function problem(status: number, error: string, message: string, extra: Record<string, unknown> = {}): Reply {
  return { status, body: { error, message, ...extra } };
}

export interface WordCountQueriesOptions {
  /** This instance's `host:port` (its applicationServer). */
  self: string;
  /** Partitions of the store's source topics (the input's partition count). */
  partitions: number;
  peer?: PeerClient;
}

export class WordCountQueries {
  private readonly peer: PeerClient;
  private probeKeys?: string[];

  constructor(
    readonly app: QueryableStreams,
    private readonly options: WordCountQueriesOptions,
  ) {
    this.peer = options.peer ?? fetchPeer;
  }

  /**
   * The count of a word whose partition this instance owns (the route asks @kstreams/http's
   * ownedHere first, which forwards the request to the owner otherwise).
   */
  localCount(word: string, partition: number): Reply {
    const count = this.app.store<string, number>(COUNTS_STORE).get(word);
    if (count === undefined) {
      return problem(404, 'not_found', `no count for the word "${word}": it has not been seen (yet)`, {
        word,
        partition,
        host: this.options.self,
      });
    }
    return { status: 200, body: { word, count, partition, host: this.options.self } };
  }

  /** The n most frequent words of this instance's tasks only. */
  async localTop(n: number): Promise<Reply> {
    const top = await topN(this.localCounts(), n);
    return { status: 200, body: { top, instances: [this.options.self] } };
  }

  /**
   * The n most frequent words across all instances: every word lives in exactly one partition,
   * so the global top n is the top n of the union of each instance's local top n.
   */
  async top(n: number): Promise<Reply> {
    const owners = await this.owners();
    if (owners.unowned.length > 0) {
      return {
        ...problem(
          503,
          'unavailable',
          `partitions ${owners.unowned.join(', ')} have no instance right now (the group is rebalancing); ` +
            'a top list without them would be wrong; retry in a moment',
          { partitions: owners.unowned },
        ),
        headers: { 'retry-after': '1' },
      };
    }
    const parts = await Promise.all(
      [...owners.hosts].map(async (host) => {
        if (host === this.options.self) return { host, reply: await this.localTop(n) };
        return { host, reply: await this.ask(host, `/counts?top=${n}&scope=local`) };
      }),
    );
    const failed = parts.find((p) => p.reply.status !== 200);
    if (failed) return failed.reply;
    const merged = await topN(
      parts.flatMap((p) => (p.reply.body as { top: WordCount[] }).top),
      n,
    );
    return { status: 200, body: { top: merged, instances: [...owners.hosts].sort() } };
  }

  private async *localCounts(): AsyncGenerator<WordCount> {
    for await (const { key, value } of this.app.store<string, number>(COUNTS_STORE).all()) {
      yield { word: key, count: value };
    }
  }

  /** Which instance runs each partition, learnt by asking for the owner of one key per partition. */
  private async owners(): Promise<{ hosts: Set<string>; unowned: number[] }> {
    this.probeKeys ??= probeKeys(this.options.partitions);
    const hosts = new Set<string>();
    const unowned: number[] = [];
    const metas = await Promise.all(
      this.probeKeys.map((key) => this.app.queryMetadataForKey(COUNTS_STORE, key, keySerde)),
    );
    metas.forEach((meta, partition) => {
      if (meta.local) hosts.add(this.options.self);
      else if (meta.host !== undefined) hosts.add(meta.host);
      else unowned.push(partition);
    });
    return { hosts, unowned };
  }

  private async ask(host: string, path: string): Promise<Reply> {
    try {
      return await this.peer(host, path);
    } catch (error) {
      return problem(
        502,
        'bad_gateway',
        `the instance at ${host} did not answer ${path}: ${(error as Error).message}`,
        {
          host,
        },
      );
    }
  }
}

/** For each partition p, a key that the default partitioner puts in p. */
export function probeKeys(partitions: number): string[] {
  return keysForPartitions(partitions, 'probe-');
}
