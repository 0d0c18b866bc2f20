// `pnpm kafka start | stop [--clean] | status | logs [-f]`: manages the local development broker.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { BrokerError, brokerOptions, brokerPaths, start, status, stop } from './broker.ts';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (process.env.KAFKA_BROKERS) {
    console.log(`KAFKA_BROKERS is set (${process.env.KAFKA_BROKERS}): using that cluster, nothing to do.`);
    return 0;
  }
  const opts = brokerOptions();
  switch (command) {
    case 'start': {
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
      console.error('usage: pnpm kafka start | stop [--clean] | status | logs [-f]');
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof BrokerError ? `error: ${err.message}` : err);
    process.exit(1);
  },
);
