import type { CardStatus } from './entities/card.entity';
import type { CardOnFile } from './processors/processor';
import type { ProcessorKind } from './processors/processors';

/** A new issuer (docs/api.md 8): stored, or a processor's with its base URL and the credentials file's content as parsed. */
export type IssuerSettings =
  { readonly kind: 'stored' } | { readonly kind: ProcessorKind; readonly baseUrl: string; readonly credentials: unknown };

/** A new card's issuer, with the credentials the operator stores for it (docs/api.md 6), the card at the issuer's processor (6.1), or both. */
export interface CardIssuance {
  issuerId: number;
  stored?: { provisioningId: string; provisioningSecret: string };
  processor?: CardOnFile;
}

export type { CardStatus };

/** The operator commands of docs/api.md 8 that cards answer: the port the CLI holds, bound to CardsService by CardsModule. */
export abstract class CardOperations {
  /** The new issuer's id. */
  abstract createIssuer(name: string, settings: IssuerSettings): Promise<number>;
  /** The new card's id; the user must be a member of the organization. */
  abstract createCard(userId: number, organizationId: number, status: CardStatus, issuance?: CardIssuance): Promise<number>;
  /** Sets the status and emits `card.updated` in the same transaction (docs/api.md 10.12). */
  abstract setStatus(cardId: number, status: CardStatus): Promise<void>;
}
