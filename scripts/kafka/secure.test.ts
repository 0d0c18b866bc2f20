// The secure broker's parts that need no broker: its TLS material verifies for 127.0.0.1 against
// its own CA, and users that StorageTool or a JAAS line could not carry are refused up front.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkSecureOptions,
  ensureClientCertificate,
  ensureTls,
  scramFormatArgs,
  secureProperties,
} from './secure.ts';

describe('secure broker', () => {
  it('makes a CA and a broker certificate for 127.0.0.1 once, and reuses them', () => {
    const home = mkdtempSync(join(tmpdir(), 'kstreams-tls-'));
    const tls = ensureTls(home);
    const dir = join(home, 'tls');
    const verify = execFileSync(
      'openssl',
      ['verify', '-CAfile', tls.ca, '-verify_ip', '127.0.0.1', join(dir, 'broker.pem')],
      { encoding: 'utf8' },
    );
    expect(verify).toContain('OK');
    expect(statSync(join(dir, 'keystore-password')).mode & 0o077).toBe(0);
    const again = ensureTls(home);
    expect(again).toEqual(tls);
    rmSync(home, { recursive: true, force: true });
  });

  it('writes the SCRAM users at format time and logs the broker in as the super user', () => {
    const secure = { superUser: 'admin', users: { admin: 'a-1', app: 'b-2' } };
    expect(scramFormatArgs(secure)).toEqual([
      '--add-scram',
      'SCRAM-SHA-512=[name=admin,password=a-1]',
      '--add-scram',
      'SCRAM-SHA-512=[name=app,password=b-2]',
    ]);
    const props = secureProperties({ host: '127.0.0.1', port: 1, controllerPort: 2 }, secure, {
      ca: 'ca.pem',
      keystore: 'k.p12',
      keystorePassword: 'kp',
    });
    expect(props).toContain('listeners=SASL_SSL://127.0.0.1:1,CONTROLLER://127.0.0.1:2');
    expect(props).toContain('username="admin" password="a-1"');
    expect(props).toContain('super.users=User:admin;User:ANONYMOUS');
    expect(props).toContain('authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer');
  });

  it('extra listeners: SASL/PLAIN over TLS with the same users, and mutual TLS mapping CN to the user', () => {
    const secure = {
      superUser: 'admin',
      users: { admin: 'a-1', app: 'p-2' },
      extraListeners: { plainPort: 3, mtlsPort: 4 },
    };
    const props = secureProperties({ host: '127.0.0.1', port: 1, controllerPort: 2 }, secure, {
      ca: 'ca.pem',
      keystore: 'k.p12',
      keystorePassword: 'kp',
    });
    expect(props).toContain(
      'advertised.listeners=SASL_SSL://127.0.0.1:1,SASL_PLAIN://127.0.0.1:3,MTLS://127.0.0.1:4',
    );
    expect(props).toContain('SASL_PLAIN:SASL_SSL,MTLS:SSL');
    expect(props).toContain('listener.name.sasl_plain.sasl.enabled.mechanisms=PLAIN');
    expect(props).toContain('user_admin="a-1" user_app="p-2";');
    expect(props).toContain('listener.name.mtls.ssl.client.auth=required');
    expect(props).toContain('ssl.principal.mapping.rules=RULE:^CN=([^,]+)$/$1/,DEFAULT');
  });

  it("signs a client certificate with the broker's CA, CN = the user", () => {
    const home = mkdtempSync(join(tmpdir(), 'kstreams-tls-'));
    const { ca } = ensureTls(home);
    const { cert } = ensureClientCertificate(home, 'app');
    expect(execFileSync('openssl', ['verify', '-CAfile', ca, cert], { encoding: 'utf8' })).toContain('OK');
    const subject = execFileSync('openssl', ['x509', '-in', cert, '-noout', '-subject'], {
      encoding: 'utf8',
    });
    expect(subject).toMatch(/CN\s*=\s*app/);
  });

  it('refuses users it cannot write, naming them', () => {
    expect(() => checkSecureOptions({ superUser: 'root', users: { admin: 'x' } })).toThrow(
      "the super user 'root' must be one of the SCRAM users",
    );
    expect(() => checkSecureOptions({ superUser: 'admin', users: { admin: 'x', app: 'a,b]' } })).toThrow(
      "SCRAM user 'app': names and passwords may use only letters",
    );
  });
});
