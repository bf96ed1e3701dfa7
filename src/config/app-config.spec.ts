import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppConfig, loadAppConfig } from './app-config';
import { ConfigError } from './environment';

const KEY = randomBytes(32);
const KEY_B64 = KEY.toString('base64');
/** The tests' CA (test/support/tls): a file of one PEM certificate. */
const CA_PEM = readFileSync(join(__dirname, '../../test/support/tls/ca.pem'), 'utf8');

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'platform-api-config-'));
});
afterEach(() => {
  rmSync(cwd, { recursive: true, force: true });
});

/** Loads with a fixed SECRET_KEY unless the test says otherwise, so no key file is involved. */
const load = (env: Record<string, string>): AppConfig => loadAppConfig({ SECRET_KEY: KEY_B64, ...env }, cwd);

/** The ConfigError a load throws (fails the test when it does not throw one). */
function configErrorOf(env: Record<string, string>): ConfigError {
  try {
    loadAppConfig(env, cwd);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected a ConfigError for ${Object.keys(env).join(', ')}`);
}

describe('loadAppConfig defaults (docs/api.md 2)', () => {
  it('uses the docs/api.md 2 default for every unset variable', () => {
    const config = load({});
    expect({
      production: config.production,
      port: config.port,
      host: config.host,
      apiPrefix: config.apiPrefix,
      migrateOnStart: config.migrateOnStart,
      dnsServers: config.dnsServers,
      dnsTimeoutMs: config.dnsTimeoutMs,
      webhooksPerOrgMax: config.webhooksPerOrgMax,
      logLevel: config.logLevel,
      metricsPort: config.metricsPort,
      metricsHost: config.metricsHost,
      issuerTimeoutMs: config.issuerTimeoutMs,
    }).toEqual({
      production: false,
      port: 3000,
      host: '0.0.0.0',
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      apiPrefix: '/api',
      migrateOnStart: true,
      dnsServers: undefined,
      dnsTimeoutMs: 2000,
      webhooksPerOrgMax: 100,
      logLevel: 'info',
      issuerTimeoutMs: 10_000,
    });
  });

  it('limits failed authentications to 1000 per address, provisioning to 300 per wallet token, and trusts no proxy, by default', () => {
    const { rateLimits } = load({});
    expect([rateLimits.authFailuresPerAddress, rateLimits.perWalletToken, rateLimits.trustedProxies]).toEqual([1000, 300, []]);
  });

  it('parses TRUSTED_PROXIES as comma-separated addresses and CIDRs of either family', () => {
    expect(load({ TRUSTED_PROXIES: ' 10.0.0.1, 10.1.0.0/16 ,::1,fd00::/8,' }).rateLimits.trustedProxies).toEqual([
      '10.0.0.1',
      '10.1.0.0/16',
      '::1',
      'fd00::/8',
    ]);
  });

  it('trusts no range by default, and reads TRUSTED_CIDRS entries with the ports they name (docs/api.md 10.4)', () => {
    expect(load({}).trustedCidrs).toEqual([]);
    expect(load({ TRUSTED_CIDRS: '127.0.0.1/32:9443,10.0.0.0/8:443,8443,192.168.0.0/16' }).trustedCidrs).toEqual([
      { cidr: '127.0.0.1/32', ports: [9443] },
      { cidr: '10.0.0.0/8', ports: [443, 8443] },
      { cidr: '192.168.0.0/16' },
    ]);
  });

  it('stops on a TRUSTED_CIDRS port out of range, naming the variable', () => {
    expect(configErrorOf({ TRUSTED_CIDRS: '127.0.0.1/32:70000' }).message).toMatch(/^TRUSTED_CIDRS: /);
  });

  it('warns at start of a TRUSTED_CIDRS range over loopback, link-local or a cloud metadata address (docs/api.md 10.4)', () => {
    expect(load({ TRUSTED_CIDRS: '10.0.0.0/8:443,127.0.0.1/32:9443' }).warnings).toEqual([
      "TRUSTED_CIDRS: 127.0.0.1/32 covers loopback (127.0.0.0/8): every organization's webhooks may reach it, on port 9443",
    ]);
    expect(load({ TRUSTED_CIDRS: '10.0.0.0/8:443' }).warnings).toEqual([]);
  });

  it('defaults the database to sqlite:data/platform-api.sqlite resolved against the working directory', () => {
    expect(load({}).database).toEqual({ type: 'sqlite', path: join(cwd, 'data', 'platform-api.sqlite') });
  });

  it('treats an empty variable as unset', () => {
    const config = load({ PORT: '', LOG_LEVEL: '', MIGRATE_ON_START: '' });
    expect([config.port, config.logLevel, config.migrateOnStart]).toEqual([3000, 'info', true]);
  });

  it('has no previous secret keys by default', () => {
    expect(load({}).secretKeys.previous).toEqual([]);
  });
});

describe('loadAppConfig with valid values', () => {
  it('reads every variable it is given', () => {
    const config = load({
      PORT: '8080',
      HOST: '127.0.0.1',
      API_PREFIX: '/v1/platform',
      DNS_SERVERS: '9.9.9.9',
      DNS_TIMEOUT_MS: '500',
      WEBHOOKS_PER_ORG_MAX: '7',
      LOG_LEVEL: 'debug',
      MIGRATE_ON_START: 'false',
      ISSUER_TIMEOUT_MS: '2500',
    });
    expect({
      port: config.port,
      host: config.host,
      apiPrefix: config.apiPrefix,
      dnsServers: config.dnsServers,
      dnsTimeoutMs: config.dnsTimeoutMs,
      webhooksPerOrgMax: config.webhooksPerOrgMax,
      logLevel: config.logLevel,
      migrateOnStart: config.migrateOnStart,
      issuerTimeoutMs: config.issuerTimeoutMs,
    }).toEqual({
      port: 8080,
      host: '127.0.0.1',
      apiPrefix: '/v1/platform',
      dnsServers: ['9.9.9.9'],
      dnsTimeoutMs: 500,
      webhooksPerOrgMax: 7,
      logLevel: 'debug',
      migrateOnStart: false,
      issuerTimeoutMs: 2500,
    });
  });

  it('reads DELIVERY_CA_FILE, a file of PEM certificates, as its path against the working directory', () => {
    writeFileSync(join(cwd, 'ca.pem'), CA_PEM + CA_PEM);
    expect(load({ DELIVERY_CA_FILE: 'ca.pem' }).delivery.caFile).toBe(join(cwd, 'ca.pem'));
  });

  it('reads METRICS_PORT beside PORT', () => {
    expect(load({ PORT: '8080', METRICS_PORT: '9464' }).metricsPort).toBe(9464);
  });

  it('binds metrics to loopback whatever HOST says, unless METRICS_HOST names another address (docs/api.md 9)', () => {
    expect(load({ HOST: '0.0.0.0', METRICS_PORT: '9464' }).metricsHost).toBe('127.0.0.1');
    expect(load({ HOST: '::', METRICS_PORT: '9464' }).metricsHost).toBe('127.0.0.1');
  });

  it.each(['10.1.2.3', '0.0.0.0', '::1', '::', 'fd00::9'])('reads METRICS_HOST=%s, an IP address', (value) => {
    expect(load({ METRICS_HOST: value }).metricsHost).toBe(value);
  });

  it('drops a trailing slash from API_PREFIX', () => {
    expect(load({ API_PREFIX: '/api/' }).apiPrefix).toBe('/api');
  });

  it('accepts an absolute sqlite path as given', () => {
    const path = join(cwd, 'elsewhere', 'db.sqlite');
    expect(load({ DATABASE_URL: `sqlite:${path}` }).database).toEqual({ type: 'sqlite', path });
  });

  it('resolves a relative sqlite path against the working directory', () => {
    expect(load({ DATABASE_URL: 'sqlite:db/x.sqlite' }).database).toEqual({ type: 'sqlite', path: join(cwd, 'db', 'x.sqlite') });
  });

  it('gives a mysql:// URL type mysql, flavor mysql, and the URL unchanged', () => {
    expect(load({ DATABASE_URL: 'mysql://user:pass@db.example:3306/platform' }).database).toEqual({
      type: 'mysql',
      flavor: 'mysql',
      url: 'mysql://user:pass@db.example:3306/platform',
      poolSize: 10,
      connectTimeoutMs: 2000,
      queryTimeoutMs: 5000,
    });
  });

  it('gives a mariadb:// URL type mysql, flavor mariadb, and a mysql: URL', () => {
    expect(load({ DATABASE_URL: 'mariadb://user:pass@db.example:3306/platform' }).database).toEqual({
      type: 'mysql',
      flavor: 'mariadb',
      url: 'mysql://user:pass@db.example:3306/platform',
      poolSize: 10,
      connectTimeoutMs: 2000,
      queryTimeoutMs: 5000,
    });
  });

  it.each([
    ['one address', '9.9.9.9', ['9.9.9.9']],
    ['ip:port', '127.0.0.1:5353', ['127.0.0.1:5353']],
    ['[v6]:port', '[::1]:5353', ['[::1]:5353']],
    ['a bare IPv6 address', '2001:db8::53', ['2001:db8::53']],
    ['a list with spaces', ' 1.1.1.1 , 8.8.8.8:53 ,[2606:4700::1111]:53', ['1.1.1.1', '8.8.8.8:53', '[2606:4700::1111]:53']],
  ])('accepts DNS_SERVERS as %s', (_, value, servers) => {
    expect(load({ DNS_SERVERS: value }).dnsServers).toEqual(servers);
  });
});

describe('loadAppConfig refuses invalid values, naming the variable', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['METRICS_PORT', '0'],
    ['METRICS_PORT', '65536'],
    ['METRICS_PORT', 'metrics'],
    ['METRICS_HOST', 'localhost'],
    ['METRICS_HOST', 'metrics.example.com'],
    ['METRICS_HOST', '127.0.0.256'],
    ['METRICS_HOST', '127.1'],
    ['METRICS_HOST', '[::1]'],
    ['METRICS_HOST', '127.0.0.1:9464'],
    ['METRICS_HOST', ' 127.0.0.1'],
    ['DATABASE_URL', 'postgres://x'],
    ['DATABASE_URL', 'sqlite:'],
    ['DATABASE_URL', 'mysql://root:pw@db.example:3306'],
    ['DATABASE_URL', 'mysql://root:pw@db.example:3306/'],
    ['DATABASE_URL', 'not a url'],
    ['DNS_SERVERS', '1.1.1.1,dns.example'],
    ['DNS_SERVERS', '1.1.1.1:0'],
    ['DNS_SERVERS', '1.1.1.1:65536'],
    ['DNS_SERVERS', '999.1.1.1'],
    ['DNS_SERVERS', ' , '],
    ['DNS_TIMEOUT_MS', '0'],
    ['DNS_TIMEOUT_MS', 'soon'],
    ['ISSUER_TIMEOUT_MS', '0'],
    ['ISSUER_TIMEOUT_MS', '10s'],
    ['ISSUER_TIMEOUT_MS', '600001'],
    ['SECRET_KEY', randomBytes(16).toString('base64')],
    ['SECRET_KEY', randomBytes(33).toString('base64')],
    ['SECRET_KEY', `${KEY_B64.slice(0, 20)}!${KEY_B64.slice(21)}`],
    ['PREVIOUS_SECRET_KEYS', `${randomBytes(32).toString('base64')},${randomBytes(31).toString('base64')}`],
    ['LOG_LEVEL', 'loud'],
    ['MIGRATE_ON_START', 'yes'],
    ['API_PREFIX', 'a b'],
    ['API_PREFIX', '/a b'],
    ['WEBHOOKS_PER_ORG_MAX', '0'],
    ['WEBHOOKS_PER_ORG_MAX', 'many'],
    ['TRUSTED_CIDRS', '0.0.0.0/0'],
    ['TRUSTED_CIDRS', '::/0'],
    ['TRUSTED_CIDRS', '10.0.0.0/8,0.0.0.0/1:443'],
    ['TRUSTED_CIDRS', 'fd00::1:443'],
    ['TRUSTED_PROXIES', 'loopback'],
    ['TRUSTED_PROXIES', '10.0.0.0/33'],
    ['TRUSTED_PROXIES', '10.0.0.1,proxy.internal'],
    ['RATE_LIMIT_AUTH_FAILURES_PER_ADDRESS', '0'],
    ['RATE_LIMIT_PER_WALLET_TOKEN', 'lots'],
    ['DELIVERY_RETRY_SCHEDULE', ','],
    ['DELIVERY_RETRY_SCHEDULE', '1,x'],
    ['DELIVERY_CA_FILE', 'missing.pem'],
    ['DELIVERY_PROXY_URL', 'https://proxy.example.com:3128'],
    ['DELIVERY_PROXY_URL', 'http://proxy.example.com:0'],
  ])('%s=%j', (variable, value) => {
    const error = configErrorOf({ SECRET_KEY: KEY_B64, [variable]: value });
    expect(error.message.startsWith(`${variable}: `)).toBe(true);
    expect(error.message).not.toContain('\n');
  });

  it.each([
    ['a short SECRET_KEY', 'SECRET_KEY', 'c2hvcnQtYnV0LXNlY3JldC1rZXktdmFsdWU='],
    ['a non-base64 SECRET_KEY', 'SECRET_KEY', 'hunter2-hunter2-hunter2-hunter2-hunter2-hunter2!'],
    ['a bad PREVIOUS_SECRET_KEYS', 'PREVIOUS_SECRET_KEYS', 'c2hvcnQtYnV0LXNlY3JldC1rZXktdmFsdWU='],
    ['a postgres DATABASE_URL', 'DATABASE_URL', 'postgres://admin:hunter2@db.example/prod'],
    ['a mysql DATABASE_URL without database', 'DATABASE_URL', 'mysql://admin:hunter2@db.example:3306'],
    ['an unparsable DATABASE_URL', 'DATABASE_URL', 'hunter2 at db'],
  ])('never shows the value of %s in the message', (_, variable, value) => {
    const error = configErrorOf({ SECRET_KEY: KEY_B64, [variable]: value });
    expect(error.message.startsWith(`${variable}: `)).toBe(true);
    expect(error.message).not.toContain(value);
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('c2hvcnQ');
  });

  it.each([
    ['no certificate', '{}'],
    ['a certificate that does not parse', '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n'],
    ['a good certificate beside one that does not parse', `${CA_PEM}-----BEGIN CERTIFICATE-----\nbm90\n-----END CERTIFICATE-----\n`],
  ])('refuses a DELIVERY_CA_FILE of %s, naming it', (_, content) => {
    writeFileSync(join(cwd, 'ca.pem'), content);
    expect(configErrorOf({ SECRET_KEY: KEY_B64, DELIVERY_CA_FILE: 'ca.pem' }).message).toBe(
      `DELIVERY_CA_FILE: ${join(cwd, 'ca.pem')} must hold PEM certificates`,
    );
  });

  it('refuses a METRICS_HOST that is not an IP address in one line, naming it', () => {
    expect(configErrorOf({ SECRET_KEY: KEY_B64, METRICS_HOST: 'localhost' }).message).toBe(
      'METRICS_HOST: invalid address "localhost" (an IP address of this host, such as 127.0.0.1 or ::1)',
    );
  });

  it('refuses METRICS_PORT equal to PORT in one line: metrics never go on the public port', () => {
    expect(configErrorOf({ SECRET_KEY: KEY_B64, METRICS_PORT: '3000' }).message).toBe(
      'METRICS_PORT: must differ from PORT (3000): metrics are never served on the public port',
    );
    expect(configErrorOf({ SECRET_KEY: KEY_B64, PORT: '8080', METRICS_PORT: '8080' }).message).toMatch(
      /^METRICS_PORT: must differ from PORT \(8080\)/,
    );
  });

  it('refuses to start in production without SECRET_KEY, naming SECRET_KEY', () => {
    const error = configErrorOf({ NODE_ENV: 'production' });
    expect(error.message.startsWith('SECRET_KEY: ')).toBe(true);
  });

  it('creates no key file in production without SECRET_KEY', () => {
    configErrorOf({ NODE_ENV: 'production' });
    expect(existsSync(join(cwd, 'data', 'secret.key'))).toBe(false);
  });
});

describe('loadAppConfig secret keys', () => {
  it('uses SECRET_KEY as the current key', () => {
    expect(load({}).secretKeys.current.equals(KEY)).toBe(true);
  });

  it('uses SECRET_KEY in production', () => {
    const config = load({ NODE_ENV: 'production' });
    expect([config.production, config.secretKeys.current.equals(KEY)]).toEqual([true, true]);
  });

  it('does not write a key file when SECRET_KEY is set', () => {
    load({});
    expect(existsSync(join(cwd, 'data', 'secret.key'))).toBe(false);
  });

  it('parses PREVIOUS_SECRET_KEYS as a comma-separated list of keys, in order', () => {
    const [a, b] = [randomBytes(32), randomBytes(32)];
    const config = load({ PREVIOUS_SECRET_KEYS: ` ${a.toString('base64')} ,${b.toString('base64')},` });
    expect(config.secretKeys.previous.map((k) => k.toString('hex'))).toEqual([a.toString('hex'), b.toString('hex')]);
  });

  describe('outside production without SECRET_KEY', () => {
    const keyFile = () => join(cwd, 'data', 'secret.key');

    it('creates data/secret.key under the working directory', () => {
      loadAppConfig({}, cwd);
      expect(existsSync(keyFile())).toBe(true);
    });

    it('creates the key file with mode 0600', () => {
      loadAppConfig({}, cwd);
      expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
    });

    it('creates data/ with mode 0700', () => {
      loadAppConfig({}, cwd);
      expect(statSync(join(cwd, 'data')).mode & 0o777).toBe(0o700);
    });

    it('has no start-up warning for a key file only its owner can read', () => {
      loadAppConfig({}, cwd);
      expect(loadAppConfig({}, cwd).warnings).toEqual([]);
    });

    it.each([0o640, 0o644, 0o604, 0o660])('warns at start about a key file of mode %o, naming the file and the fix', (mode) => {
      loadAppConfig({}, cwd);
      chmodSync(keyFile(), mode);
      const { warnings } = loadAppConfig({}, cwd);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(keyFile());
      expect(warnings[0]).toContain('chmod 600');
    });

    it('writes the base64 of 32 bytes, which is the current key', () => {
      const config = loadAppConfig({}, cwd);
      const text = readFileSync(keyFile(), 'utf8').trim();
      expect(text).toMatch(/^[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(text, 'base64').equals(config.secretKeys.current)).toBe(true);
      expect(config.secretKeys.current.length).toBe(32);
    });

    it('returns the same key on a second load', () => {
      const first = loadAppConfig({ NODE_ENV: 'development' }, cwd).secretKeys.current;
      const second = loadAppConfig({ NODE_ENV: 'test' }, cwd).secretKeys.current;
      expect(second.toString('hex')).toBe(first.toString('hex'));
    });

    it('leaves no temporary file beside the key file', () => {
      loadAppConfig({}, cwd);
      loadAppConfig({}, cwd);
      expect(readdirSync(join(cwd, 'data'))).toEqual(['secret.key']);
    });

    it('gives another working directory another key', () => {
      const other = mkdtempSync(join(tmpdir(), 'platform-api-config-'));
      try {
        const a = loadAppConfig({}, cwd).secretKeys.current;
        const b = loadAppConfig({}, other).secretKeys.current;
        expect(a.equals(b)).toBe(false);
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    });
  });
});
