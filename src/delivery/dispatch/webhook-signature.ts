import { Webhook } from 'standardwebhooks';

/**
 * The `webhook-signature` header of docs/api.md 10.3: `v1,<base64 HMAC-SHA256>` over
 * `<id>.<timestamp>.<body>` for each live secret (`whsec_…`), the newest first, separated by a
 * space, signed by the Standard Webhooks reference library itself.
 */
export function webhookSignature(secrets: readonly string[], id: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');
}
