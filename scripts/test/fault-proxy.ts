// A TCP proxy between Kafka clients and a broker that can lose responses: the request reaches the
// broker and takes effect, but the client's connection is cut before the answer arrives. That is
// what a broker restart or a network blip does to an acknowledgement in flight, made to happen on
// demand. It reads only the frame headers of the Kafka protocol (size, API key, correlation id).
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

/** Kafka API keys of the requests whose answers a test may want to lose. */
export const ApiKey = { Produce: 0, AddOffsetsToTxn: 25, EndTxn: 26, TxnOffsetCommit: 28 } as const;

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

export class FaultProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private loseUntil = 0;
  private losing = new Set<number>();
  /** Responses lost so far (each one cut a client connection). */
  lost = 0;

  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  async start(): Promise<void> {
    this.server = createServer((client) => this.pipe(client));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, this.target.host, resolve);
    });
  }

  /** For `durationMs`, every answer to a request with one of `apiKeys` is lost. */
  loseResponses(apiKeys: number[], durationMs: number): void {
    this.losing = new Set(apiKeys);
    this.loseUntil = Date.now() + durationMs;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
  }

  private pipe(client: Socket): void {
    const broker = tcpConnect(this.target.port, this.target.host);
    this.sockets.add(client).add(broker);
    // Correlation ids of requests on this connection whose response must not reach the client.
    const doomed = new Set<number>();
    const cut = () => {
      client.destroy();
      broker.destroy();
    };
    client.on(
      'data',
      frames((frame) => {
        const apiKey = frame.readInt16BE(4);
        if (Date.now() < this.loseUntil && this.losing.has(apiKey)) doomed.add(frame.readInt32BE(8));
        broker.write(frame);
      }),
    );
    broker.on(
      'data',
      frames((frame) => {
        if (doomed.has(frame.readInt32BE(4))) {
          this.lost++;
          cut();
          return;
        }
        client.write(frame);
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
