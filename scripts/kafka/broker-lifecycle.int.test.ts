// `start, start, stop, start, stop` in a row works and leaves no broker JVM behind; a port held
// by another process gives an error that names it. Runs its own broker on spare ports so that it
// never touches the broker the other integration tests use.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';

const cli = join(import.meta.dirname, 'cli.ts');
const tsx = join(import.meta.dirname, '../../node_modules/.bin/tsx');

function kafkaCli(args: string[], port: number): Promise<{ code: number; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, KAFKA_PORT: String(port) };
  delete env.KAFKA_BROKERS;
  return new Promise((resolve) => {
    execFile(tsx, [cli, ...args], { env }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

/** Broker JVMs whose command line names this port's config: what `stop` must leave at zero. */
function brokerJvms(port: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.includes('kafka.Kafka') && new RegExp(`broker-${port}(-secure)?/server.properties`).test(cmd))
        pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

describe('pnpm kafka', () => {
  it('start, start, stop, start, stop: idempotent, and no JVM is left running', async () => {
    const port = 19192;
    let r = await kafkaCli(['start'], port);
    expect(r.out).toContain(`Kafka started at 127.0.0.1:${port}`);
    expect(brokerJvms(port)).toHaveLength(1);

    r = await kafkaCli(['start'], port);
    expect(r).toMatchObject({ code: 0 });
    expect(r.out).toContain(`Kafka already running at 127.0.0.1:${port}`);
    expect(brokerJvms(port)).toHaveLength(1);

    r = await kafkaCli(['status'], port);
    expect(r.code).toBe(0);

    r = await kafkaCli(['stop'], port);
    expect(r.out).toContain('Kafka stopped');
    expect(brokerJvms(port)).toHaveLength(0);
    r = await kafkaCli(['status'], port);
    expect(r.code).toBe(3);

    r = await kafkaCli(['start'], port);
    expect(r.out).toContain(`Kafka started at 127.0.0.1:${port}`);
    r = await kafkaCli(['stop', '--clean'], port);
    expect(r.out).toContain('Kafka stopped');
    expect(brokerJvms(port)).toHaveLength(0);
  });

  it('names the port and how to choose another when the port is taken', async () => {
    const port = 19292;
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const r = await kafkaCli(['start'], port);
      expect(r.code).toBe(1);
      expect(r.out).toContain(`port ${port}`);
      expect(r.out).toContain('KAFKA_PORT');
      expect(brokerJvms(port)).toHaveLength(0);
    } finally {
      squatter.close();
    }
  });

  it('start --secure: a SASL_SSL broker whose printed CA and app user work; stop --secure --clean removes it', async () => {
    const port = 19792;
    const r = await kafkaCli(['start', '--secure'], port);
    expect(r.out).toContain(`Kafka (SASL_SSL, SCRAM-SHA-512, ACLs on) started at 127.0.0.1:${port}`);
    const ca = /CA certificate: (\S+)/.exec(r.out)?.[1];
    const usersFile = /passwords: +(\S+)/.exec(r.out)?.[1];
    expect(ca && usersFile).toBeTruthy();
    const { users } = JSON.parse(readFileSync(usersFile!, 'utf8')) as { users: Record<string, string> };
    // No password on the terminal.
    expect(r.out).not.toContain(users.app!);
    expect(r.out).not.toContain(users.admin!);
    const kafka = new Kafka({
      brokers: [`127.0.0.1:${port}`],
      ssl: { ca: [readFileSync(ca!, 'utf8')] },
      sasl: { mechanism: 'scram-sha-512', username: 'app', password: users.app! },
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'secure-cli-check' }] });
    expect(await admin.listTopics()).toContain('secure-cli-check');
    await admin.disconnect();

    const stopped = await kafkaCli(['stop', '--secure', '--clean'], port);
    expect(stopped.out).toContain('Kafka stopped');
    expect(brokerJvms(port)).toHaveLength(0);
    expect(existsSync(usersFile!)).toBe(false);
  });
});
