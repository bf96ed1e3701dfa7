import { Injectable } from '@nestjs/common';
import { SecretBox } from '../crypto/secret-box';
import { Errors } from '../common/domain-error';
import { UnitOfWork } from '../database/unit-of-work';
import { Outbox } from '../delivery/events/outbox';
import { IdentityService } from '../identity/identity.service';
import { CardsRepository } from './cards.repository';
import { CardStatus } from './entities/card.entity';
import { IssuerPort, ProvisioningCredentials, provisioningSecretBinding } from './issuer.port';

export interface CardIssuance {
  issuerId: number;
  provisioningId: string;
  provisioningSecret: string;
}

/** Card push-provisioning (docs/api.md 6) and the operator's card commands (docs/api.md 8). */
@Injectable()
export class CardsService {
  constructor(
    private readonly cards: CardsRepository,
    private readonly issuer: IssuerPort,
    private readonly secrets: SecretBox,
    private readonly identity: IdentityService,
    private readonly work: UnitOfWork,
    private readonly outbox: Outbox,
  ) {}

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

  createIssuer(name: string): Promise<number> {
    return this.cards.createIssuer(name);
  }

  /** The user must be a member of the organization; credentials only with an issuer. */
  async createCard(userId: number, organizationId: number, status: CardStatus, issuance?: CardIssuance): Promise<number> {
    await this.identity.requireUser(userId);
    await this.identity.requireMembership(organizationId, userId);
    if (issuance && !(await this.cards.issuerExists(issuance.issuerId))) {
      throw Errors.notFound(`no issuer ${issuance.issuerId}`);
    }
    // The secret is sealed for the card's id, known once the row exists: both in one transaction.
    return this.work.run(async (tx) => {
      const issuer = issuance && { issuerId: issuance.issuerId, provisioningId: issuance.provisioningId };
      const cardId = await this.cards.insertCard(tx, { userId, organizationId, status, issuer });
      if (issuance) {
        const sealed = this.secrets.seal(issuance.provisioningSecret, provisioningSecretBinding(organizationId, cardId));
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
