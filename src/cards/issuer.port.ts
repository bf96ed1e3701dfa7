import { Injectable } from '@nestjs/common';
import { SealedSecret, SecretBinding, SecretBox } from '../crypto/secret-box';

/** A provisioning secret belongs to its card (and the card's organization). */
export const provisioningSecretBinding = (organizationId: number, cardId: number): SecretBinding => ({
  table: 'cards',
  organizationId,
  row: cardId,
});

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

/**
 * Where provisioning credentials come from (docs/api.md 3): one injectable port, so that a live
 * issuer integration can replace the stored credentials without touching the service.
 */
export abstract class IssuerPort {
  abstract provisioningCredentials(card: IssuedCard): Promise<ProvisioningCredentials>;
}

/** The default issuer: the credentials the operator stored, the secret decrypted on demand. */
@Injectable()
export class StoredCredentialsIssuer extends IssuerPort {
  constructor(private readonly secrets: SecretBox) {
    super();
  }

  async provisioningCredentials(card: IssuedCard): Promise<ProvisioningCredentials> {
    return {
      id: card.provisioningId,
      secret: this.secrets.open(card.provisioningSecret, provisioningSecretBinding(card.organizationId, card.cardId)),
    };
  }
}
