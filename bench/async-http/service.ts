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
server.listen(0, '127.0.0.1', () => process.send?.((server.address() as AddressInfo).port));
process.on('disconnect', () => process.exit(0));
