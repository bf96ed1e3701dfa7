import { Injectable } from '@nestjs/common';
import { AuditTrail } from '../audit/audit-trail';
import { Errors } from '../common/domain-error';
import { UnitOfWork } from '../database/unit-of-work';
import { CardsRepository, PushableRow } from './cards.repository';
import type { ProvisioningEntriesDto } from './dto/push-provisioning.dto';
import { IssuerPort, PushableCard } from './issuer.port';
import { PushPayloads, PushRequests, Wallet, WALLETS } from './processors/processor';
import { isProcessorKind } from './processors/processors';

/**
 * Wallet push provisioning through the card's processor (docs/api.md 6.1): the cards a wallet
 * extension can add, the card a request names, and the wallet's payload, audited as the card's
 * user's `card.provisioned`.
 */
@Injectable()
export class PushProvisioningService {
  constructor(
    private readonly cards: CardsRepository,
    private readonly issuer: IssuerPort,
    private readonly work: UnitOfWork,
    private readonly audit: AuditTrail,
  ) {}

  async entries(userId: number): Promise<ProvisioningEntriesDto> {
    const rows = await this.cards.listPushable(userId);
    return {
      data: rows.map((row) => ({
        id: String(row.cardId),
        title: row.title,
        cardholderName: row.cardholderName,
        primaryAccountSuffix: row.primaryAccountSuffix,
        network: row.network,
        wallets: [...WALLETS],
      })),
    };
  }

  /** The user's card `cardId`: 404 `no card` unless theirs and active or frozen; 403 `no issuer` unless a processor knows it. */
  async cardToPush(userId: number, cardId: number): Promise<PushableCard> {
    const row = await this.cards.findPushable(userId, cardId);
    if (row === undefined) throw Errors.noCard();
    const card = pushableCardOf(row);
    if (card === undefined) throw Errors.noIssuer();
    return card;
  }

  async push<W extends Wallet>(wallet: W, card: PushableCard, request: PushRequests[W]): Promise<PushPayloads[W]> {
    const payload = await this.issuer.push(wallet, card, request);
    await this.work.run(
      (tx) =>
        this.audit.record(tx, { organizationId: card.organizationId, action: 'card.provisioned', card: card.cardId, fields: [wallet] }),
      { actor: { kind: 'user', userId: card.userId } },
    );
    return payload;
  }
}

/** The card with everything a push needs, or undefined: no issuer, a stored one, or a card its processor has no token for. */
function pushableCardOf(row: PushableRow): PushableCard | undefined {
  const {
    issuerId,
    issuerKind,
    baseUrl,
    credentials,
    credentialsKeyId,
    processorToken,
    title,
    cardholderName,
    primaryAccountSuffix,
    network,
  } = row;
  if (issuerId === null || issuerKind === null || !isProcessorKind(issuerKind) || baseUrl === null) return undefined;
  if (credentials === null || credentialsKeyId === null) return undefined;
  if (processorToken === null || title === null || cardholderName === null || primaryAccountSuffix === null || network === null) {
    return undefined;
  }
  return {
    cardId: row.cardId,
    organizationId: row.organizationId,
    userId: row.userId,
    issuer: { id: issuerId, kind: issuerKind, baseUrl, credentials: { ciphertext: credentials, keyId: credentialsKeyId } },
    processorToken,
    title,
    cardholderName,
    primaryAccountSuffix,
    network,
  };
}
