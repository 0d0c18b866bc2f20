// The HTTP plugin's status page files (no app needed to serve them): prints each one's answer.
// Run from the installed package and from an esbuild bundle of this file.
import { startHttpServer } from '@kstreams/http';

const server = await startHttpServer({ app: () => undefined, port: 0, host: '127.0.0.1' });
const answers = {};
for (const path of ['/', '/assets/status-page.js', '/assets/status-page.css', '/assets/mermaid.min.js']) {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
  const body = await res.text();
  answers[path] = { status: res.status, type: res.headers.get('content-type'), length: body.length };
}
await server.close();
console.log(JSON.stringify(answers));
