import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { SecretBox } from '../crypto/secret-box';
import { Errors } from '../common/domain-error';
import { UnitOfWork } from '../database/unit-of-work';
import { Outbox } from '../delivery/events/outbox';
import { IdentityLookups } from '../identity/identity-ports';
import { CardsRepository } from './cards.repository';
import { CardStatus } from './entities/card.entity';
import { issuerCredentialsBinding, IssuerPort, ProvisioningCredentials, provisioningSecretBinding } from './issuer.port';
import { processorBaseUrl, processorCredentials } from './processors/issuer-settings';
import { isProcessorKind, PROCESSORS } from './processors/processors';
import { CardIssuance, CardOperations, IssuerSettings } from './card-operations';

/** Card provisioning from stored credentials (docs/api.md 6) and the operator's issuer and card commands (docs/api.md 8). */
@Injectable()
export class CardsService implements CardOperations {
  private readonly production: boolean;

  constructor(
    private readonly cards: CardsRepository,
    private readonly issuer: IssuerPort,
    private readonly secrets: SecretBox,
    private readonly identity: IdentityLookups,
    private readonly work: UnitOfWork,
    private readonly outbox: Outbox,
    config: AppConfig,
  ) {
    this.production = config.production;
  }

  /** The credentials of the user's newest active or frozen card: 404 no card, 403 no issuer. */
  async provisioningFor(userId: number): Promise<ProvisioningCredentials> {
    const card = await this.cards.findNewestProvisionable(userId);
    if (!card) throw Errors.noCard();
    if (card.issuerId === null || card.provisioningId === null || card.ciphertext === null || card.keyId === null) {
      throw Errors.noIssuer();
    }
    return this.issuer.provisioningCredentials({
      cardId: card.cardId,
      organizationId: card.organizationId,
      issuerId: card.issuerId,
      provisioningId: card.provisioningId,
      provisioningSecret: { ciphertext: card.ciphertext, keyId: card.keyId },
    });
  }

  /**
   * A processor issuer's base URL and credentials are checked before anything is stored; its
   * credentials are sealed for its id, known once the row exists: both in one transaction.
   */
  async createIssuer(name: string, settings: IssuerSettings): Promise<number> {
    if (settings.kind === 'stored') return this.work.run((tx) => this.cards.createIssuer(tx, { name, kind: 'stored' }));
    const { kind } = settings;
    const baseUrl = processorBaseUrl(settings.baseUrl, this.production);
    const credentials = JSON.stringify(processorCredentials(PROCESSORS[kind], settings.credentials));
    return this.work.run(async (tx) => {
      const issuerId = await this.cards.createIssuer(tx, { name, kind, baseUrl });
      await this.cards.setIssuerCredentials(tx, issuerId, this.secrets.seal(credentials, issuerCredentialsBinding(issuerId)));
      return issuerId;
    });
  }

  /** The user must be a member of the organization; a card known to a processor only with a processor issuer. */
  async createCard(userId: number, organizationId: number, status: CardStatus, issuance?: CardIssuance): Promise<number> {
    await this.identity.requireUser(userId);
    await this.identity.requireMembership(organizationId, userId);
    if (issuance) {
      const kind = await this.cards.findIssuerKind(issuance.issuerId);
      if (kind === undefined) throw Errors.notFound(`no issuer ${issuance.issuerId}`);
      if (issuance.processor && !isProcessorKind(kind)) {
        throw Errors.invalid(`issuer ${issuance.issuerId} is of kind ${kind}: its cards have no processor token`);
      }
    }
    // The secret is sealed for the card's id, known once the row exists: both in one transaction.
    return this.work.run(async (tx) => {
      const cardId = await this.cards.insertCard(tx, {
        userId,
        organizationId,
        status,
        issuerId: issuance?.issuerId,
        provisioningId: issuance?.stored?.provisioningId,
        processor: issuance?.processor,
      });
      if (issuance?.stored) {
        const sealed = this.secrets.seal(issuance.stored.provisioningSecret, provisioningSecretBinding(organizationId, cardId));
        await this.cards.setProvisioningSecret(tx, cardId, sealed);
      }
      return cardId;
    });
  }

  /**
   * Sets the status and emits `card.updated` to the card's organization (docs/api.md 10.8), in
   * the same transaction: a process that dies leaves both or neither (10.12).
   */
  async setStatus(cardId: number, status: CardStatus): Promise<void> {
    const found = await this.work.run(async (tx) => {
      const organization = await this.cards.setStatus(tx, cardId, status);
      if (organization === undefined) return false;
      await this.outbox.emit(tx, { type: 'card.updated', organization, data: { card: cardId, status } });
      return true;
    });
    if (!found) throw Errors.notFound(`no card ${cardId}`);
  }
}
