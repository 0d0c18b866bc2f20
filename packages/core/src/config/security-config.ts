// The `ssl` and `sasl` settings: checked before they reach kafkajs, and kept so that no log line,
// error message or JSON/inspect output of the resolved config can show a secret.
import { inspect } from 'node:util';

const MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer', 'aws'];
const REDACTED = '[redacted]';
/** Keys whose values are secrets wherever they appear in ssl/sasl settings. */
const SECRET_KEYS = new Set(['password', 'key', 'passphrase', 'pfx', 'secretAccessKey', 'sessionToken']);

/**
 * A copy of `value` whose secret fields still read as they are (kafkajs needs them) but print
 * as `[redacted]` through JSON.stringify, util.inspect and pino (which uses JSON).
 */
function redacting<T extends object>(value: T): T {
  const copy = { ...value } as Record<string, unknown>;
  const shown = () =>
    Object.fromEntries(Object.entries(copy).map(([k, v]) => [k, SECRET_KEYS.has(k) ? REDACTED : v]));
  Object.defineProperty(copy, 'toJSON', { value: shown, enumerable: false });
  Object.defineProperty(copy, inspect.custom, { value: () => shown(), enumerable: false });
  return copy as T;
}

/** Checks `ssl`; problems name the setting, never a value. */
export function resolveSsl(ssl: unknown, problems: string[]): unknown {
  if (ssl === undefined || typeof ssl === 'boolean') return ssl;
  if (typeof ssl !== 'object' || ssl === null || Array.isArray(ssl)) {
    problems.push(
      `"ssl" must be true, or an object of TLS options ({ ca, cert, key, rejectUnauthorized }), got ${typeof ssl}`,
    );
    return undefined;
  }
  const s = ssl as Record<string, unknown>;
  if (s.rejectUnauthorized !== undefined && typeof s.rejectUnauthorized !== 'boolean')
    problems.push('"ssl.rejectUnauthorized" must be a boolean');
  return redacting(s);
}

/** Checks `sasl`: a known mechanism and, for plain/scram, a username and a password. */
export function resolveSasl(sasl: unknown, problems: string[]): unknown {
  if (sasl === undefined) return undefined;
  if (typeof sasl !== 'object' || sasl === null || Array.isArray(sasl)) {
    problems.push(`"sasl" must be an object { mechanism, username, password }, got ${typeof sasl}`);
    return undefined;
  }
  const s = sasl as Record<string, unknown>;
  const mechanism = typeof s.mechanism === 'string' ? s.mechanism.toLowerCase() : s.mechanism;
  if (typeof mechanism !== 'string' || !MECHANISMS.includes(mechanism)) {
    problems.push(
      `"sasl.mechanism" must be one of ${MECHANISMS.map((m) => `'${m}'`).join(', ')}, got ${
        typeof s.mechanism === 'string' ? `'${s.mechanism}'` : typeof s.mechanism
      }`,
    );
    return undefined;
  }
  if (['plain', 'scram-sha-256', 'scram-sha-512'].includes(mechanism)) {
    if (typeof s.username !== 'string' || s.username === '')
      problems.push(`"sasl.username" is required with mechanism '${mechanism}'`);
    if (typeof s.password !== 'string' || s.password === '')
      problems.push(`"sasl.password" is required with mechanism '${mechanism}' (a non-empty string)`);
  }
  if (mechanism === 'oauthbearer' && typeof s.oauthBearerProvider !== 'function')
    problems.push(`"sasl.oauthBearerProvider" is required with mechanism 'oauthbearer' (a function)`);
  return redacting({ ...s, mechanism });
}
