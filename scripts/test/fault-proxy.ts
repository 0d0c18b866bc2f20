// A TCP proxy between Kafka clients and a broker that can lose responses: the request reaches the
// broker and takes effect, but the client's connection is cut before the answer arrives. That is
// what a broker restart or a network blip does to an acknowledgement in flight, made to happen on
// demand. It can also drop every connection for a moment (requests vanish unanswered), delay
// answers, and it counts the requests in flight on each connection. It reads only the frame
// headers of the Kafka protocol (size, API key, correlation id).
//
// Two ways in: a fixed target (a broker whose advertised listener is the proxy's port), or routed,
// where the client's socketFactory (see `socketFactory()`) names the broker it wanted in a first
// line, so one proxy serves every broker of a cluster without touching its metadata.
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

/** Kafka API keys of the requests whose answers a test may want to lose. */
export const ApiKey = {
  Produce: 0,
  Fetch: 1,
  OffsetCommit: 8,
  AddOffsetsToTxn: 25,
  EndTxn: 26,
  TxnOffsetCommit: 28,
} as const;

/** Splits a byte stream into size-prefixed Kafka frames. */
function frames(onFrame: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const end = 4 + pending.readInt32BE(0);
      if (pending.length < end) break;
      onFrame(pending.subarray(0, end));
      pending = pending.subarray(end);
    }
  };
}

/** The arguments kafkajs passes to a socketFactory. */
interface SocketFactoryArgs {
  host: string;
  port: number;
  onConnect: () => void;
}

/**
 * A kafkajs `socketFactory` whose connections go through the routed proxy listening on
 * `proxyPort` to the broker the client asked for; for clients in other processes than the proxy.
 */
export function proxiedSocketFactory(proxyPort: number): (args: SocketFactoryArgs) => Socket {
  return ({ host, port, onConnect }) => {
    const socket = tcpConnect({ host: '127.0.0.1', port: proxyPort }, onConnect);
    socket.setNoDelay(true);
    // Written before anything kafkajs writes: the route line.
    socket.write(`${host}:${port}\n`);
    return socket;
  };
}

/**
 * A Fetch request (v11, the version kafkajs 2.2.4 sends; others pass unchanged) without the
 * entries of `topics`. Layout: size, header v1 (api key, version, correlation id, client id), then
 * replica id, max wait, min bytes, max bytes, isolation level, session id and epoch, the topics
 * (name, partitions of 28 bytes each), forgotten topics and rack id.
 */
function withoutTopics(frame: Buffer, topics: ReadonlySet<string>): Buffer {
  if (frame.readInt16BE(6) !== 11) return frame;
  const clientIdLength = frame.readInt16BE(12);
  const topicsAt = 14 + Math.max(0, clientIdLength) + 4 * 4 + 1 + 2 * 4;
  const count = frame.readInt32BE(topicsAt);
  const kept: Buffer[] = [];
  let at = topicsAt + 4;
  for (let i = 0; i < count; i++) {
    const start = at;
    const nameLength = frame.readInt16BE(at);
    const name = frame.toString('utf8', at + 2, at + 2 + nameLength);
    at += 2 + nameLength;
    at += 4 + 28 * frame.readInt32BE(at);
    if (!topics.has(name)) kept.push(frame.subarray(start, at));
  }
  if (kept.length === count) return frame;
  const countBytes = Buffer.alloc(4);
  countBytes.writeInt32BE(kept.length);
  const out = Buffer.concat([frame.subarray(0, topicsAt), countBytes, ...kept, frame.subarray(at)]);
  out.writeInt32BE(out.length - 4, 0);
  return out;
}

export class FaultProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private loseUntil = 0;
  private losing = new Set<number>();
  private loseCount = 0;
  private losingNext = new Set<number>();
  private dropUntil = 0;
  private delayMs = 0;
  private delaying = new Set<number>();
  private readonly cutters = new Set<() => void>();
  private withheld = new Set<string>();
  private withholdUntil = 0;
  /** Responses lost so far (each one cut a client connection). */
  lost = 0;
  /** Called with the API key of each lost response, as the connection is cut. */
  onLost?: (apiKey: number) => void;
  /** Fetch requests that left out a withheld topic. */
  withheldFetchRequests = 0;
  /** Requests that vanished while connections were dropped. */
  dropped = 0;
  /** Requests seen per API key. */
  readonly requests = new Map<number, number>();
  /** Per API key, the most requests that were in flight (sent, not yet answered) on one connection. */
  readonly maxInFlight = new Map<number, number>();

  /** `port` 0 picks a free one; without a target, every connection names its broker (routed). */
  constructor(
    private readonly listenPort: number,
    private readonly target?: { host: string; port: number },
  ) {}

  get port(): number {
    const address = this.server?.address();
    return address && typeof address === 'object' ? address.port : this.listenPort;
  }

  async start(): Promise<void> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.listenPort, this.target?.host ?? '127.0.0.1', resolve);
    });
  }

  /**
   * A kafkajs `socketFactory` whose connections go through this (routed) proxy to the broker the
   * client asked for.
   */
  socketFactory(): (args: SocketFactoryArgs) => Socket {
    return proxiedSocketFactory(this.port);
  }

  /** For `durationMs`, every answer to a request with one of `apiKeys` is lost. */
  loseResponses(apiKeys: number[], durationMs: number): void {
    this.losing = new Set(apiKeys);
    this.loseUntil = Date.now() + durationMs;
  }

  /** The answers to the next `count` requests with one of `apiKeys` are lost. */
  loseNextResponses(apiKeys: number[], count: number): void {
    this.losingNext = new Set(apiKeys);
    this.loseCount = count;
  }

  /** Cuts every connection now, and for `durationMs` requests vanish and connections are cut. */
  dropConnections(durationMs: number): void {
    this.dropUntil = Date.now() + durationMs;
    for (const cut of [...this.cutters]) cut();
  }

  /** Answers to requests with one of `apiKeys` arrive `ms` late (in order, as on a slow link). */
  delayResponses(apiKeys: number[], ms: number): void {
    this.delaying = new Set(apiKeys);
    this.delayMs = ms;
  }

  /**
   * For `durationMs`, Fetch requests leave out the partitions of `topics`: the broker never hears
   * of them, so those partitions are fetched that much later than the others (what a slow leader,
   * a busy machine or a backlog does to one input of a join), while every other request passes.
   */
  withholdFetches(topics: string[], durationMs: number): void {
    this.withheld = new Set(topics);
    this.withholdUntil = Date.now() + durationMs;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
  }

  private accept(client: Socket): void {
    if (this.target) {
      this.pipe(client, this.target);
      return;
    }
    let head = Buffer.alloc(0);
    const onRoute = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const nl = head.indexOf(10);
      if (nl < 0) return;
      client.off('data', onRoute);
      const [host, port] = head.subarray(0, nl).toString().split(':');
      const rest = head.subarray(nl + 1);
      this.pipe(client, { host: host!, port: Number(port) }, rest.length > 0 ? rest : undefined);
    };
    client.on('data', onRoute);
    client.on('error', () => client.destroy());
  }

  private pipe(client: Socket, target: { host: string; port: number }, first?: Buffer): void {
    const broker = tcpConnect(target.port, target.host);
    broker.setNoDelay(true);
    this.sockets.add(client).add(broker);
    // Correlation ids of requests on this connection whose response must not reach the client.
    const doomed = new Set<number>();
    const delayed = new Set<number>();
    const inFlight = new Map<number, number>();
    const apiKeyOf = new Map<number, number>();
    const cut = () => {
      this.cutters.delete(cut);
      client.destroy();
      broker.destroy();
    };
    this.cutters.add(cut);
    const fromClient = frames((frame) => {
      const apiKey = frame.readInt16BE(4);
      const correlationId = frame.readInt32BE(8);
      this.requests.set(apiKey, (this.requests.get(apiKey) ?? 0) + 1);
      if (Date.now() < this.dropUntil) {
        this.dropped++;
        cut();
        return;
      }
      if (Date.now() < this.loseUntil && this.losing.has(apiKey)) doomed.add(correlationId);
      if (this.loseCount > 0 && this.losingNext.has(apiKey)) {
        this.loseCount--;
        doomed.add(correlationId);
      }
      if (this.delaying.has(apiKey)) delayed.add(correlationId);
      apiKeyOf.set(correlationId, apiKey);
      const n = (inFlight.get(apiKey) ?? 0) + 1;
      inFlight.set(apiKey, n);
      if (n > (this.maxInFlight.get(apiKey) ?? 0)) this.maxInFlight.set(apiKey, n);
      const sent =
        apiKey === ApiKey.Fetch && Date.now() < this.withholdUntil
          ? withoutTopics(frame, this.withheld)
          : frame;
      if (sent !== frame) this.withheldFetchRequests++;
      broker.write(sent);
    });
    client.on('data', fromClient);
    if (first) fromClient(first);
    // Answers leave in the order they came, each after its delay: a chain per connection.
    let chain = Promise.resolve();
    broker.on(
      'data',
      frames((frame) => {
        const correlationId = frame.readInt32BE(4);
        const apiKey = apiKeyOf.get(correlationId);
        apiKeyOf.delete(correlationId);
        const deliver = () => {
          if (apiKey !== undefined) inFlight.set(apiKey, (inFlight.get(apiKey) ?? 1) - 1);
          if (doomed.has(correlationId)) {
            this.lost++;
            cut();
            if (apiKey !== undefined) this.onLost?.(apiKey);
            return;
          }
          client.write(frame);
        };
        const wait = delayed.delete(correlationId) ? this.delayMs : 0;
        chain = chain.then(async () => {
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          deliver();
        });
      }),
    );
    for (const s of [client, broker]) {
      s.on('error', cut);
      s.on('close', () => {
        this.sockets.delete(s);
        cut();
      });
    }
  }
}
