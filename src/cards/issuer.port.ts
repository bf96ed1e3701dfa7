import type { SealedSecret, SecretBinding } from '../crypto/secret-box';
import type { CardOnFile, PushPayloads, PushRequests, Wallet } from './processors/processor';
import type { ProcessorKind } from './processors/processors';

/** A provisioning secret belongs to its card (and the card's organization). */
export const provisioningSecretBinding = (organizationId: number, cardId: number): SecretBinding => ({
  table: 'cards',
  organizationId,
  row: cardId,
});

/** A processor issuer's credentials belong to it, and to no organization: it serves them all. */
export const issuerCredentialsBinding = (issuerId: number): SecretBinding => ({ table: 'issuers', organizationId: null, row: issuerId });

/** Push-provisioning credentials as the wallet extension receives them. */
export interface ProvisioningCredentials {
  id: string;
  secret: string;
}

/** A card that has an issuer, with the credentials stored for it. */
export interface IssuedCard {
  readonly cardId: number;
  readonly organizationId: number;
  readonly issuerId: number;
  readonly provisioningId: string;
  readonly provisioningSecret: SealedSecret;
}

/** An issuer that speaks to a card processor: where, and with which credentials (sealed). */
export interface ProcessorIssuer {
  readonly id: number;
  readonly kind: ProcessorKind;
  readonly baseUrl: string;
  readonly credentials: SealedSecret;
}

/** A card its user may push to a wallet (docs/api.md 6.1): theirs, active or frozen, of a processor issuer. */
export interface PushableCard extends CardOnFile {
  readonly cardId: number;
  readonly organizationId: number;
  readonly userId: number;
  readonly issuer: ProcessorIssuer;
}

/**
 * Where a wallet's provisioning data comes from (docs/api.md 3, 6, 6.1): one injectable port, the
 * stored credentials of a card, or the payload its issuer's processor makes for a wallet. The
 * implementation chooses the processor's adapter by the issuer's kind.
 */
export abstract class IssuerPort {
  abstract provisioningCredentials(card: IssuedCard): Promise<ProvisioningCredentials>;

  /** The wallet's payload, or the DomainError docs/api.md 6.1 gives the processor's failure. */
  abstract push<W extends Wallet>(wallet: W, card: PushableCard, request: PushRequests[W]): Promise<PushPayloads[W]>;
}
