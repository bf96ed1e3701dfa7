import { Injectable } from '@nestjs/common';
import { SecretBox } from '../crypto/secret-box';
import { headerListOf, sendableHeaders } from './custom-headers';
import { type ReceiverAuth, receiverAuthOf } from './receiver-auth';
import { customHeadersBinding, receiverAuthBinding, signingSecretBinding } from './webhook.model';
import type { WebhookTarget } from './webhook-sql';

/** What an attempt to a webhook sends with (docs/api.md 10.3, 10.15, 10.16), opened for it. */
export interface AttemptCredentials {
  /** The signing secrets, the newest first: a rotated-out one beside it until it expires (docs/api.md 10.7). */
  readonly signingSecrets: readonly string[];
  /** Its custom headers to send, values as stored (one stored before its name was refused is not sent). */
  readonly headers: Readonly<Record<string, string>>;
  /** How it authenticates to its receiver, when it does. */
  readonly auth?: ReceiverAuth;
}

/**
 * The one place a webhook's sealed credentials are opened for an attempt: its signing secrets,
 * its custom headers' values and its receiver authentication, each by its own binding and
 * decoded, never cast. Nothing here is logged: the values are credentials.
 */
@Injectable()
export class TargetCredentials {
  constructor(private readonly secrets: SecretBox) {}

  /** Throws when one of them no longer opens or decodes (a key gone, a row tampered with): the attempt cannot be made. */
  open(organizationId: number, target: WebhookTarget, at: Date): AttemptCredentials {
    const signingSecrets = [this.secrets.open(target.secret, signingSecretBinding(organizationId, target.name))];
    if (target.previous !== undefined && target.previous.expiresAt > at) {
      signingSecrets.push(this.secrets.open(target.previous.secret, signingSecretBinding(organizationId, target.name, 'previous')));
    }
    const headers =
      target.headers === undefined
        ? []
        : this.secrets.openJson(
            target.headers,
            customHeadersBinding(organizationId, target.name),
            'the stored custom headers',
            headerListOf,
          );
    const auth =
      target.auth &&
      this.secrets.openJson(
        target.auth,
        receiverAuthBinding(organizationId, target.name),
        'the stored receiver authentication',
        receiverAuthOf,
      );
    return { signingSecrets, headers: Object.fromEntries(sendableHeaders(headers)), ...(auth !== undefined && { auth }) };
  }
}
