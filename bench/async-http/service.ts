// The benchmark's "local HTTP service", in its own process as a real one would be: it answers
// every GET after 20 ms and tells its parent its port. Kept out of the app's process so that the
// app's one JS thread runs the app (the topology, kafkajs, the HTTP client) and not the server too.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((req, res) => {
  setTimeout(() => res.end(`scored:${req.url}`), 20);
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
// Up to 1,000 connections open at once when a variant starts: Node's default accept queue (511)
// dropped the surplus, whose SYNs were retried a second later.
server.listen({ port: 0, host: '127.0.0.1', backlog: 4_096 }, () =>
  process.send?.((server.address() as AddressInfo).port),
);
// The parent asks for the service's CPU time (µs, user + system) to report it per variant.
process.on('message', () => {
  const { user, system } = process.cpuUsage();
  process.send?.({ cpuMicros: user + system });
});
process.on('disconnect', () => process.exit(0));
