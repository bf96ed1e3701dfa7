import { describe, expect, it, vi } from 'vitest';
import type { SealedSecret, SecretBinding, SecretBox } from '../crypto/secret-box';
import { Errors } from '../common/domain-error';
import { rejectionOf } from '../../test/support/unit/domain-errors';
import type { IdentityLookups } from '../identity/identity-ports';
import { unitOfWork } from '../../test/support/unit/unit-of-work';
import type { AppConfig } from '../config/app-config';
import type { CardsRepository, NewCard, NewIssuer, ProvisioningRow } from './cards.repository';
import type { CardOnFile } from './processors/processor';
import type { IssuerSettings } from './card-operations';
import { CardsService } from './cards.service';
import type { Transaction } from '../database/unit-of-work';
import type { EmittedEvent, Outbox } from '../delivery/events/outbox';
import { IssuedCard, IssuerPort, ProvisioningCredentials } from './issuer.port';

const USER = 7;
const ORG = 3;
const ISSUER = 11;
/** An issuer of kind lithic. */
const PROCESSOR_ISSUER = 12;

/** A stored card with an issuer and both credentials, the secret sealed. */
const ISSUED_ROW: ProvisioningRow = {
  cardId: 42,
  organizationId: ORG,
  issuerId: ISSUER,
  provisioningId: 'prov-stored',
  ciphertext: 'c2VhbGVk',
  keyId: 'key-1',
};

/** What the issuer port answers: deliberately unlike the stored values. */
const PORT_ANSWER: ProvisioningCredentials = { id: 'prov-from-port', secret: 'secret-from-port' };

class FakeIssuer extends IssuerPort {
  readonly asked: IssuedCard[] = [];

  async provisioningCredentials(card: IssuedCard): Promise<ProvisioningCredentials> {
    this.asked.push(card);
    return PORT_ANSWER;
  }

  push(): never {
    throw new Error('CardsService never pushes to a wallet');
  }
}

interface Fixture {
  /** The newest provisionable card the repository finds. */
  row?: ProvisioningRow;
  knownUsers?: number[];
  /** `[org, user]` pairs. */
  memberships?: [number, number][];
  /** Issuers by id, with their kind. */
  issuers?: Record<number, string>;
  knownCards?: number[];
  production?: boolean;
}

function serviceWith({
  row,
  knownUsers = [USER],
  memberships = [[ORG, USER]],
  issuers = { [ISSUER]: 'stored', [PROCESSOR_ISSUER]: 'lithic' },
  knownCards = [],
  production = false,
}: Fixture = {}) {
  const repository = {
    findNewestProvisionable: vi.fn(async (_userId: number) => row),
    createIssuer: vi.fn(async (_tx: Transaction, _issuer: NewIssuer) => 5),
    setIssuerCredentials: vi.fn(async (_tx: Transaction, _id: number, _sealed: SealedSecret) => undefined),
    findIssuerKind: vi.fn(async (id: number) => issuers[id]),
    insertCard: vi.fn(async (_tx: Transaction, _card: NewCard) => 99),
    setProvisioningSecret: vi.fn(async (_tx: Transaction, _cardId: number, _sealed: SealedSecret) => undefined),
    setStatus: vi.fn(async (_tx: Transaction, id: number) => (knownCards.includes(id) ? ORG : undefined)),
  };
  const identity = {
    requireUser: vi.fn(async (id: number) => {
      if (!knownUsers.includes(id)) throw Errors.notFound(`no user ${id}`);
    }),
    requireMembership: vi.fn(async (org: number, user: number) => {
      if (!memberships.some(([o, u]) => o === org && u === user)) throw Errors.invalid(`user ${user} is not a member of ${org}`);
    }),
  };
  const secrets = {
    seal: vi.fn((plaintext: string, _binding: SecretBinding): SealedSecret => ({
      ciphertext: `sealed:${plaintext.length}`,
      keyId: 'key-1',
    })),
    open: vi.fn((_sealed: SealedSecret): string => {
      throw new Error('the service must leave opening secrets to the issuer port');
    }),
  };
  const issuer = new FakeIssuer();
  /** Keeps the events emitted, each with the transaction it was written in. */
  const emitted: EmittedEvent[] = [];
  const outbox = {
    emit: vi.fn(async (_tx: Transaction, event: EmittedEvent) => {
      emitted.push(event);
      return { id: 'evt_x', deliveries: 0 };
    }),
  };
  const service = new CardsService(
    repository as unknown as CardsRepository,
    issuer,
    secrets as unknown as SecretBox,
    identity as unknown as IdentityLookups,
    unitOfWork(),
    outbox as unknown as Outbox,
    { production } as AppConfig,
  );
  return { service, repository, identity, secrets, issuer, emitted, outbox };
}

describe('CardsService.provisioningFor (docs/api.md 6)', () => {
  it('answers 404 no card when the user has no active or frozen card', async () => {
    const { service } = serviceWith({ row: undefined });
    expect(await rejectionOf(service.provisioningFor(USER))).toEqual({ status: 404, body: { code: 'no card' } });
  });

  it('does not ask the issuer port when there is no card', async () => {
    const { service, issuer } = serviceWith({ row: undefined });
    await service.provisioningFor(USER).catch(() => undefined);
    expect(issuer.asked).toEqual([]);
  });

  it("looks up the caller's own newest provisionable card", async () => {
    const { service, repository } = serviceWith({ row: ISSUED_ROW });
    await service.provisioningFor(USER);
    expect(repository.findNewestProvisionable.mock.calls).toEqual([[USER]]);
  });

  it('answers 403 no issuer for a card without an issuer or credentials', async () => {
    const { service } = serviceWith({
      row: { cardId: 42, organizationId: ORG, issuerId: null, provisioningId: null, ciphertext: null, keyId: null },
    });
    expect(await rejectionOf(service.provisioningFor(USER))).toEqual({ status: 403, body: { code: 'no issuer' } });
  });

  it.each<[string, Partial<ProvisioningRow>]>([
    ['no provisioning id', { provisioningId: null }],
    ['no sealed secret', { ciphertext: null }],
    ['no key id for the secret', { keyId: null }],
    ['no credentials at all', { provisioningId: null, ciphertext: null, keyId: null }],
  ])('answers 403 no issuer for a card with an issuer but %s', async (_, missing) => {
    const { service, issuer } = serviceWith({ row: { ...ISSUED_ROW, ...missing } });
    expect(await rejectionOf(service.provisioningFor(USER))).toEqual({ status: 403, body: { code: 'no issuer' } });
    expect(issuer.asked).toEqual([]);
  });

  it('answers 403 no issuer for credentials left on a card without an issuer', async () => {
    const { service, issuer } = serviceWith({ row: { ...ISSUED_ROW, issuerId: null } });
    expect(await rejectionOf(service.provisioningFor(USER))).toEqual({ status: 403, body: { code: 'no issuer' } });
    expect(issuer.asked).toEqual([]);
  });

  it("answers exactly the issuer port's credentials", async () => {
    const { service } = serviceWith({ row: ISSUED_ROW });
    expect(await service.provisioningFor(USER)).toEqual(PORT_ANSWER);
  });

  it('hands the port the stored card with its secret still sealed', async () => {
    const { service, issuer, secrets } = serviceWith({ row: ISSUED_ROW });
    await service.provisioningFor(USER);
    expect(issuer.asked).toEqual([
      {
        cardId: 42,
        organizationId: ORG,
        issuerId: ISSUER,
        provisioningId: 'prov-stored',
        provisioningSecret: { ciphertext: 'c2VhbGVk', keyId: 'key-1' },
      },
    ]);
    expect(secrets.open).not.toHaveBeenCalled();
  });
});

describe('CardsService.createCard (docs/api.md 8)', () => {
  const ISSUANCE = { issuerId: ISSUER, stored: { provisioningId: 'prov-new', provisioningSecret: 'plain provisioning secret' } };
  const ON_FILE: CardOnFile = {
    processorToken: 'tok-1',
    title: 'Everyday',
    cardholderName: 'Ann Lee',
    primaryAccountSuffix: '4242',
    network: 'visa',
  };

  it('answers the id the repository gives the new card', async () => {
    const { service } = serviceWith();
    expect(await service.createCard(USER, ORG, 'active')).toBe(99);
  });

  it('refuses an unknown user and stores nothing', async () => {
    const { service, repository } = serviceWith({ knownUsers: [] });
    expect((await rejectionOf(service.createCard(USER, ORG, 'active'))).body).toMatchObject({ code: 'not found' });
    expect(repository.insertCard).not.toHaveBeenCalled();
  });

  it('refuses a user who is not a member of the organization and stores nothing', async () => {
    const { service, repository } = serviceWith({ memberships: [[ORG + 1, USER]] });
    expect((await rejectionOf(service.createCard(USER, ORG, 'active'))).body).toMatchObject({ code: 'invalid' });
    expect(repository.insertCard).not.toHaveBeenCalled();
  });

  it('checks the membership of this user in this organization', async () => {
    const { service, identity } = serviceWith();
    await service.createCard(USER, ORG, 'frozen');
    expect(identity.requireMembership.mock.calls).toEqual([[ORG, USER]]);
  });

  it('refuses an unknown issuer and stores nothing', async () => {
    const { service, repository } = serviceWith({ issuers: {} });
    expect((await rejectionOf(service.createCard(USER, ORG, 'active', ISSUANCE))).body).toMatchObject({ code: 'not found' });
    expect(repository.insertCard).not.toHaveBeenCalled();
  });

  it('stores a card without an issuer when given no issuance', async () => {
    const { service, repository } = serviceWith();
    await service.createCard(USER, ORG, 'closed');
    expect(repository.insertCard.mock.calls.map(([, card]) => card)).toEqual([{ userId: USER, organizationId: ORG, status: 'closed' }]);
    expect(repository.findIssuerKind).not.toHaveBeenCalled();
  });

  it('stores the provisioning secret only sealed, bound to the new card and its organization', async () => {
    const { service, repository, secrets } = serviceWith();
    await service.createCard(USER, ORG, 'active', ISSUANCE);
    expect(repository.insertCard.mock.calls.map(([, card]) => card)).toEqual([
      { userId: USER, organizationId: ORG, status: 'active', issuerId: ISSUER, provisioningId: 'prov-new' },
    ]);
    expect(secrets.seal.mock.calls).toEqual([['plain provisioning secret', { table: 'cards', organizationId: ORG, row: 99 }]]);
    expect(repository.setProvisioningSecret.mock.calls.map(([, id, sealed]) => [id, sealed])).toEqual([
      [99, { ciphertext: 'sealed:25', keyId: 'key-1' }],
    ]);
  });

  it("stores a processor issuer's card with its token and what a wallet shows, and no stored secret (docs/api.md 6.1)", async () => {
    const { service, repository, secrets } = serviceWith();
    await service.createCard(USER, ORG, 'active', { issuerId: PROCESSOR_ISSUER, processor: ON_FILE });
    expect(repository.insertCard.mock.calls.map(([, card]) => card)).toEqual([
      { userId: USER, organizationId: ORG, status: 'active', issuerId: PROCESSOR_ISSUER, processor: ON_FILE },
    ]);
    expect(secrets.seal).not.toHaveBeenCalled();
  });

  it('refuses a processor token for a card of a stored issuer, storing nothing', async () => {
    const { service, repository } = serviceWith();
    expect((await rejectionOf(service.createCard(USER, ORG, 'active', { issuerId: ISSUER, processor: ON_FILE }))).body).toEqual({
      code: 'invalid',
      message: [`issuer ${ISSUER} is of kind stored: its cards have no processor token`],
    });
    expect(repository.insertCard).not.toHaveBeenCalled();
  });

  it('inserts the card and sets its sealed secret in one transaction', async () => {
    const { service, repository } = serviceWith();
    await service.createCard(USER, ORG, 'active', ISSUANCE);
    expect(repository.setProvisioningSecret.mock.calls[0][0]).toBe(repository.insertCard.mock.calls[0][0]);
  });
});

describe('CardsService.createIssuer (docs/api.md 8, 6.1)', () => {
  const LITHIC: IssuerSettings = { kind: 'lithic', baseUrl: 'https://api.lithic.test/', credentials: { apiKey: 'key-123' } };

  it('stores a stored issuer with no base URL and no credentials', async () => {
    const { service, repository } = serviceWith();
    expect(await service.createIssuer('Bank', { kind: 'stored' })).toBe(5);
    expect(repository.createIssuer.mock.calls.map(([, issuer]) => issuer)).toEqual([{ name: 'Bank', kind: 'stored' }]);
    expect(repository.setIssuerCredentials).not.toHaveBeenCalled();
  });

  it("stores a processor issuer's base URL without its trailing slash, and its credentials only sealed, bound to the new issuer, in one transaction", async () => {
    const { service, repository, secrets } = serviceWith();
    await service.createIssuer('Bank', LITHIC);
    expect(repository.createIssuer.mock.calls.map(([, issuer]) => issuer)).toEqual([
      { name: 'Bank', kind: 'lithic', baseUrl: 'https://api.lithic.test' },
    ]);
    expect(secrets.seal.mock.calls).toEqual([['{"apiKey":"key-123"}', { table: 'issuers', organizationId: null, row: 5 }]]);
    expect(repository.setIssuerCredentials.mock.calls.map(([tx, id, sealed]) => [tx, id, sealed])).toEqual([
      [repository.createIssuer.mock.calls[0][0], 5, { ciphertext: 'sealed:20', keyId: 'key-1' }],
    ]);
  });

  it.each<[string, object, string]>([
    ['http to a host that is not a loopback literal', { baseUrl: 'http://processor.test' }, '--base-url: must use https'],
    ['malformed credentials', { credentials: { key: 'x' } }, '--credentials-file: has unknown members'],
  ])('refuses %s, storing nothing', async (_, change, message) => {
    const { service, repository } = serviceWith();
    const { body } = await rejectionOf(service.createIssuer('Bank', { ...LITHIC, ...change } as IssuerSettings));
    expect(body).toMatchObject({ code: 'invalid' });
    expect(String((body as { message: string[] }).message)).toContain(message);
    expect(repository.createIssuer).not.toHaveBeenCalled();
  });

  it('refuses http to loopback with NODE_ENV=production', async () => {
    const { service, repository } = serviceWith({ production: true });
    const { body } = await rejectionOf(service.createIssuer('Bank', { ...LITHIC, baseUrl: 'http://127.0.0.1:4010' }));
    expect(body).toEqual({ code: 'invalid', message: ['--base-url: must use https with NODE_ENV=production'] });
    expect(repository.createIssuer).not.toHaveBeenCalled();
  });
});

describe('CardsService.setStatus (docs/api.md 8)', () => {
  it('changes the status of a known card in the transaction that writes its event (docs/api.md 10.12)', async () => {
    const { service, repository, outbox } = serviceWith({ knownCards: [42] });
    await service.setStatus(42, 'frozen');
    expect(repository.setStatus.mock.calls.map(([, ...args]) => args)).toEqual([[42, 'frozen']]);
    expect(outbox.emit.mock.calls[0][0]).toBe(repository.setStatus.mock.calls[0][0]);
  });

  it('refuses an unknown card, emitting nothing', async () => {
    const { service, emitted } = serviceWith({ knownCards: [] });
    expect((await rejectionOf(service.setStatus(42, 'frozen'))).body).toMatchObject({ code: 'not found' });
    expect(emitted).toEqual([]);
  });

  it("emits card.updated with the card and its status to the card's organization (docs/api.md 10.8)", async () => {
    const { service, emitted } = serviceWith({ knownCards: [42] });
    await service.setStatus(42, 'closed');
    expect(emitted).toEqual([{ type: 'card.updated', organization: ORG, data: { card: 42, status: 'closed' } }]);
  });
});
