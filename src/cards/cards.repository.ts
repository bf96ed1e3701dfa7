import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { SealedSecret } from '../crypto/secret-box';
import { Database } from '../database/database';
import { CardEntity, CardStatus } from './entities/card.entity';
import { IssuerEntity } from './entities/issuer.entity';

/** The newest card a wallet may provision, as stored; issuer and credentials may be absent. */
export interface ProvisioningRow {
  cardId: number;
  issuerId: number | null;
  provisioningId: string | null;
  ciphertext: string | null;
  keyId: string | null;
}

export interface NewCard {
  userId: number;
  organizationId: number;
  status: CardStatus;
  issuer?: { issuerId: number; provisioningId: string; provisioningSecret: SealedSecret };
}

/** Statuses in which a card can still be added to a wallet. */
const PROVISIONABLE: readonly CardStatus[] = ['active', 'frozen'];

@Injectable()
export class CardsRepository {
  constructor(
    private readonly db: Database,
    @InjectRepository(CardEntity) private readonly cards: Repository<CardEntity>,
    @InjectRepository(IssuerEntity) private readonly issuers: Repository<IssuerEntity>,
  ) {}

  /** The user's newest card in a provisionable status: one statement, only the columns needed. */
  async findNewestProvisionable(userId: number): Promise<ProvisioningRow | undefined> {
    const [row] = await this.db.select<ProvisioningRow & Record<string, unknown>>(
      `SELECT id AS cardId, issuer_id AS issuerId, provisioning_id AS provisioningId,
              provisioning_secret AS ciphertext, provisioning_secret_key_id AS keyId
         FROM cards
        WHERE user_id = ? AND status IN (${PROVISIONABLE.map(() => '?').join(', ')})
        ORDER BY created_at DESC, id DESC
        LIMIT 1`,
      [userId, ...PROVISIONABLE],
    );
    return row;
  }

  async createIssuer(name: string): Promise<number> {
    return (await this.issuers.save(this.issuers.create({ name }))).id;
  }

  issuerExists(id: number): Promise<boolean> {
    return this.issuers.existsBy({ id });
  }

  async createCard({ userId, organizationId, status, issuer }: NewCard): Promise<number> {
    const card = this.cards.create({
      userId,
      organizationId,
      status,
      issuerId: issuer?.issuerId ?? null,
      provisioningId: issuer?.provisioningId ?? null,
      provisioningSecret: issuer?.provisioningSecret.ciphertext ?? null,
      provisioningSecretKeyId: issuer?.provisioningSecret.keyId ?? null,
    });
    return (await this.cards.save(card)).id;
  }

  /** False when there is no such card. */
  async setStatus(id: number, status: CardStatus): Promise<boolean> {
    return ((await this.cards.update({ id }, { status })).affected ?? 0) > 0;
  }
}
