// The security options every command that talks to Kafka takes, named as Kafka's own tools name
// them. There is no password flag: a password on the command line ends up in shell history and
// `ps`; it comes from a file, the properties file or KAFKA_SASL_PASSWORD.
import { type Command, Option } from 'commander';
import { type ClientSecurity, MECHANISMS, PROTOCOLS, resolveClientSecurity } from './client-security.ts';
import { SecurityOptionsError } from './options-error.ts';

export function addSecurityOptions(command: Command): Command {
  return (
    command
      .option(
        '--command-config <file>',
        'client properties (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.ca.location) [env: KAFKA_COMMAND_CONFIG]',
      )
      .addOption(
        new Option(
          '--security-protocol <protocol>',
          'how to reach the brokers [env: KAFKA_SECURITY_PROTOCOL]',
        ).choices([...PROTOCOLS]),
      )
      .addOption(
        new Option('--sasl-mechanism <mechanism>', 'SASL mechanism [env: KAFKA_SASL_MECHANISM]').choices([
          ...MECHANISMS,
        ]),
      )
      .option('--sasl-username <user>', 'SASL user [env: KAFKA_SASL_USERNAME]')
      .option(
        '--sasl-password-file <file>',
        "a file holding the SASL user's password [env: KAFKA_SASL_PASSWORD_FILE, or KAFKA_SASL_PASSWORD]",
      )
      .option('--ssl-ca <file>', "the PEM certificate of the CA that signed the brokers' [env: KAFKA_SSL_CA]")
      // Taken only to refuse it with a pointer to the ways that keep the password out of `ps`.
      .addOption(new Option('--sasl-password <password>').hideHelp())
  );
}

/** The command's client security; notes the properties file's keys the CLI does not use. */
export function securityOf(
  opts: Record<string, unknown>,
  warn: (s: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): ClientSecurity {
  if (opts.saslPassword !== undefined)
    throw new SecurityOptionsError(
      '--sasl-password is not taken (a password on the command line shows in `ps` and shell history): ' +
        'use --sasl-password-file FILE, KAFKA_SASL_PASSWORD, or sasl.jaas.config in --command-config',
    );
  const str = (k: string) => (typeof opts[k] === 'string' ? (opts[k] as string) : undefined);
  const security = resolveClientSecurity(
    {
      commandConfig: str('commandConfig'),
      securityProtocol: str('securityProtocol'),
      saslMechanism: str('saslMechanism'),
      saslUsername: str('saslUsername'),
      saslPasswordFile: str('saslPasswordFile'),
      sslCa: str('sslCa'),
    },
    env,
  );
  if (security.ignored.length > 0)
    warn(`kstreams: not used by the kstreams CLI, ignored: ${security.ignored.join(', ')}\n`);
  return security;
}
