import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
const child = fork(fileURLToPath(new URL('./service.ts', import.meta.url)), { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
const port = await new Promise<number>((r) => child.once('message', (m) => r(Number(m))));
const url = `http://127.0.0.1:${port}`;
const total = 40_000, conc = 4_000;
async function run(name: string, conns: number, pipelining: number, mode: 'request' | 'dispatch') {
  const pool = new Pool(url, { connections: conns, pipelining, keepAliveTimeout: 60_000 });
  const callReq = async (v: string) => { const r = await pool.request({ path: `/${v}`, method: 'GET' }); return r.body.text(); };
  const callDisp = (v: string) => new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    pool.dispatch({ path: `/${v}`, method: 'GET', origin: url }, {
      onConnect() {}, onHeaders() { return true; }, onData(c: Buffer) { chunks.push(c); return true; },
      onComplete() { resolve(chunks.length === 1 ? chunks[0]!.toString() : Buffer.concat(chunks).toString()); }, onError: reject,
    } as never);
  });
  const callSig = (v: string) => {
    const signal = new AbortController().signal;
    const onAbort = () => {};
    signal.addEventListener('abort', onAbort, { once: true });
    return callDisp(v).then((b) => { signal.removeEventListener('abort', onAbort); return b; });
  };
  const callCtl = (v: string) => { new AbortController(); return callDisp(v); };
  const call = mode === 'request' ? callReq : mode === 'sig' ? callSig : mode === 'ctl' ? callCtl : callDisp;
  // warm
  await Promise.all(Array.from({ length: 2000 }, (_, i) => call(`w${i}`)));
  let next = 0;
  const cpu = process.cpuUsage(); const t = performance.now();
  await Promise.all(Array.from({ length: conc }, async () => { while (next < total) await call(`h${next++}`); }));
  const s = (performance.now() - t) / 1000; const c = process.cpuUsage(cpu);
  console.log(name, Math.round(total / s), '/s', 'cpu us/call', Math.round((c.user + c.system) / total));
  await pool.destroy();
}
const [mode, ...specs] = process.argv.slice(2);
for (const spec of specs) { const [c, p] = spec.split('x').map(Number); await run(`${mode} ${c}x${p}`, c!, p!, mode as never); }
child.kill(); process.exit(0);
