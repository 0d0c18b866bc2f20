// `pnpm kafka start | stop [--clean] | status | logs [-f]`, each with `--secure` for the secure
// broker (SASL_SSL, SCRAM-SHA-512, ACLs; port 9192 unless KAFKA_PORT says otherwise): manages the
// local development brokers.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  BrokerError,
  type BrokerOptions,
  brokerClientConfig,
  brokerOptions,
  brokerPaths,
  start,
  status,
  stop,
} from './broker.ts';
import { defaultSecureOptions, grantEverything, SecureBrokerError } from './secure.ts';

/** The broker's options; its users (and their passwords, made once) only to start it. */
function options(secure: boolean, starting: boolean): BrokerOptions {
  if (!secure) return brokerOptions();
  const opts = brokerOptions({ ...process.env, KAFKA_PORT: process.env.KAFKA_PORT ?? '9192' });
  const withoutUsers = { ...opts, secure: { superUser: 'admin', users: {} } };
  if (!starting) return withoutUsers;
  return { ...opts, secure: defaultSecureOptions(brokerPaths(withoutUsers).home) };
}

async function startSecure(opts: BrokerOptions): Promise<void> {
  const result = await start(opts);
  const { home } = brokerPaths(opts);
  // A development broker: the app user may do anything; docs/security.md shows how to narrow it.
  await grantEverything(result.brokers, brokerClientConfig(opts, 'admin'), 'app');
  console.log(
    `Kafka (SASL_SSL, SCRAM-SHA-512, ACLs on) ${result.started ? 'started' : 'already running'} at ${result.brokers}
  CA certificate: ${join(home, 'tls', 'ca.pem')}
  users:          admin (super user), app (all topics, groups and transactional ids)
  passwords:      ${join(home, 'users.json')}
  app settings:   ssl: { ca: [readFileSync('<CA certificate>', 'utf8')] },
                  sasl: { mechanism: 'scram-sha-512', username: 'app', password: '<from users.json>' }`,
  );
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (process.env.KAFKA_BROKERS) {
    console.log(`KAFKA_BROKERS is set (${process.env.KAFKA_BROKERS}): using that cluster, nothing to do.`);
    return 0;
  }
  const secure = rest.includes('--secure');
  const opts = options(secure, command === 'start');
  switch (command) {
    case 'start': {
      if (secure) {
        await startSecure(opts);
        return 0;
      }
      const result = await start(opts);
      console.log(
        result.started ? `Kafka started at ${result.brokers}` : `Kafka already running at ${result.brokers}`,
      );
      return 0;
    }
    case 'stop': {
      const stopped = await stop(opts, { clean: rest.includes('--clean') });
      console.log(stopped ? 'Kafka stopped' : 'Kafka was not running');
      return 0;
    }
    case 'status': {
      const s = status(opts);
      console.log(s.running ? `running (pid ${s.pid}) at ${s.brokers}` : 'not running');
      return s.running ? 0 : 3;
    }
    case 'logs': {
      const { log } = brokerPaths(opts);
      if (!existsSync(log)) {
        console.error(`no broker log yet at ${log}`);
        return 1;
      }
      const tail = spawn('tail', [rest.includes('-f') ? '-f' : '-n200', log], { stdio: 'inherit' });
      return await new Promise((resolve) => tail.on('exit', (code) => resolve(code ?? 0)));
    }
    default:
      console.error(
        'usage: pnpm kafka start | stop [--clean] | status | logs [-f]   (each with --secure for the SASL_SSL broker)',
      );
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(
      err instanceof BrokerError || err instanceof SecureBrokerError ? `error: ${err.message}` : err,
    );
    process.exit(1);
  },
);
