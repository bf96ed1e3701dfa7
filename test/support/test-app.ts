import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import { CardsService } from '../../src/cards/cards.service';
import { configureApp } from '../../src/app.setup';
import { ApiExpressAdapter } from '../../src/http/http-adapter';
import { AppConfig, loadAppConfig } from '../../src/config/app-config';
import type { Role } from '../../src/identity/entities/member.entity';
import { IdentityService } from '../../src/identity/identity.service';
import { createPino } from '../../src/logging/pino.provider';
import { createTestDatabase, DatabaseKind, TestDatabase } from './databases';
import { startDnsServer, TestDnsServer, Zone } from './dns-server';

export const SESSION_COOKIE = '__Secure-auth.session_token';

export interface TestAppOptions {
  /** The test DNS server's zone; unknown names answer NXDOMAIN. */
  zone?: Zone;
  /** More environment variables (docs/api.md 2 names). */
  env?: Record<string, string>;
  /**
   * Serve this database instead of a new one: another instance of the service on it. The
   * instance that created the database drops it on close; the others leave it.
   */
  database?: TestDatabase;
  /** Share the first instance's SECRET_KEY (instances on one database must). */
  secretKey?: string;
}

/**
 * The production pipeline (AppModule + configureApp) on a throwaway database, resolving
 * webhook hosts through a real DNS server on loopback, with every log line kept in `logs`.
 */
export class TestApp {
  private constructor(
    readonly app: NestExpressApplication,
    readonly config: AppConfig,
    readonly database: TestDatabase,
    readonly dns: TestDnsServer,
    readonly logs: string[],
    private readonly ownsDatabase: boolean,
  ) {}

  static async start(kind: DatabaseKind, options: TestAppOptions = {}): Promise<TestApp> {
    const database = options.database ?? (await createTestDatabase(kind));
    const dns = await startDnsServer(options.zone);
    const config = loadAppConfig({
      DATABASE_URL: database.url,
      DNS_SERVERS: dns.address,
      DNS_TIMEOUT_MS: '300',
      SECRET_KEY: options.secretKey ?? randomBytes(32).toString('base64'),
      LOG_LEVEL: 'info',
      ...options.env,
    });
    const logs: string[] = [];
    const sink = new Writable({ write: (chunk, _encoding, done) => (logs.push(String(chunk)), done()) });
    const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(config, createPino(config.logLevel, sink))] }).compile();
    const app = moduleRef.createNestApplication<NestExpressApplication>(new ApiExpressAdapter(config.requestTimeoutMs), {
      bodyParser: false,
      logger: false,
    });
    configureApp(app);
    await app.init();
    return new TestApp(app, config, database, dns, logs, options.database === undefined);
  }

  /** Another instance of the service on this instance's database, with the same key. */
  another(options: Omit<TestAppOptions, 'database' | 'secretKey'> = {}): Promise<TestApp> {
    return TestApp.start(this.database.kind, {
      ...options,
      database: this.database,
      secretKey: this.config.secretKeys.current.toString('base64'),
    });
  }

  http(): TestAgent {
    return request(this.app.getHttpServer());
  }

  get dataSource(): DataSource {
    return this.app.get(DataSource);
  }

  get identity(): IdentityService {
    return this.app.get(IdentityService);
  }

  /** A new organization, a user with `role` in it, and a live session acting in it. */
  async member(role: Role, organizationId?: number): Promise<{ organizationId: number; userId: number; token: string; cookie: string }> {
    const org = organizationId ?? (await this.identity.createOrganization('Test Org'));
    const userId = await this.identity.createUser(`${randomBytes(6).toString('hex')}@example.test`, null);
    await this.identity.setMembership(org, userId, role);
    const { token } = await this.identity.createSession(userId, org, 3600);
    return { organizationId: org, userId, token, cookie: `${SESSION_COOKIE}=${token}` };
  }

  /** A new user, member of a new organization, with a live wallet token and one active card issued with these credentials. */
  async cardHolder(credentials: {
    provisioningId: string;
    provisioningSecret: string;
  }): Promise<{ userId: number; cardId: number; token: string }> {
    const organizationId = await this.identity.createOrganization('Card Org');
    const userId = await this.identity.createUser(`${randomBytes(6).toString('hex')}@example.test`, null);
    await this.identity.setMembership(organizationId, userId, 'member');
    const cards = this.app.get(CardsService);
    const issuerId = await cards.createIssuer('Test Issuer', { kind: 'stored' });
    const cardId = await cards.createCard(userId, organizationId, 'active', { issuerId, stored: credentials });
    const { token } = await this.identity.createWalletToken(userId, 3600);
    return { userId, cardId, token };
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.dns.close();
    if (this.ownsDatabase) await this.database.drop();
  }
}
