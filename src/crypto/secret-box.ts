import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';

/** A secret as stored: base64 of iv(12) || tag(16) || ciphertext, and the id of its key. */
export interface SealedSecret {
  readonly ciphertext: string;
  readonly keyId: string;
}

/**
 * The row a sealed secret belongs to, authenticated as GCM's additional data: a ciphertext
 * copied into another row (another card, another webhook, another organization, another issuer)
 * fails to open. `row` is the row's stable identity within its table: a card's id, a webhook's
 * name (unique in its organization, never changed by an update), an issuer's id.
 * `organizationId` is null for a row of no organization: an issuer serves them all.
 */
export interface SecretBinding {
  readonly table: 'cards' | 'webhooks' | 'events' | 'issuers';
  readonly organizationId: number | null;
  readonly row: number | string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export const keyIdOf = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 16);

/** One unambiguous encoding of a binding (JSON of a fixed-order array). */
const additionalData = ({ table, organizationId, row }: SecretBinding): Buffer =>
  Buffer.from(JSON.stringify([table, organizationId, String(row)]), 'utf8');

/**
 * AES-256-GCM for secrets kept for later use (webhook signing secrets, provisioning secrets,
 * card processors' credentials).
 * New secrets use the current key; older ones open with whichever key their id names, so
 * `SECRET_KEY` can be rotated by moving the old key to `PREVIOUS_SECRET_KEYS`. Every secret is
 * bound to its row (SecretBinding); secrets sealed before binding existed were resealed by the
 * BindSealedSecrets migration, the one caller of `openUnbound`.
 */
@Injectable()
export class SecretBox {
  private readonly currentId: string;
  private readonly keys = new Map<string, Buffer>();

  constructor(config: AppConfig) {
    for (const key of config.secretKeys.previous) this.keys.set(keyIdOf(key), key);
    this.currentId = keyIdOf(config.secretKeys.current);
    this.keys.set(this.currentId, config.secretKeys.current);
  }

  seal(plaintext: string, binding: SecretBinding): SealedSecret {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentId)!, iv);
    cipher.setAAD(additionalData(binding));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'), keyId: this.currentId };
  }

  open(sealed: SealedSecret, binding: SecretBinding): string {
    return this.decrypt(sealed, additionalData(binding));
  }

  /**
   * A sealed JSON value, opened and decoded by `decode` (which answers undefined for a value of
   * the wrong shape): the one way sealed JSON is read, never cast. Throws, naming `what` and never
   * the text, when it does not open, is not JSON, or is not of the shape.
   */
  openJson<T>(sealed: SealedSecret, binding: SecretBinding, what: string, decode: (value: unknown) => T | undefined): T {
    let value: unknown;
    try {
      value = JSON.parse(this.open(sealed, binding));
    } catch (error) {
      // A parser's message quotes the text it failed on: the secret itself.
      throw error instanceof SyntaxError ? new Error(`${what}: not JSON`) : error;
    }
    const decoded = decode(value);
    if (decoded === undefined) throw new Error(`${what}: not of the shape stored`);
    return decoded;
  }

  /** For the BindSealedSecrets migration only: a secret sealed before rows were bound. */
  openUnbound(sealed: SealedSecret): string {
    return this.decrypt(sealed);
  }

  private decrypt({ ciphertext, keyId }: SealedSecret, aad?: Buffer): string {
    const key = this.keys.get(keyId);
    if (!key) throw new Error(`no key with id ${keyId} (was SECRET_KEY rotated without PREVIOUS_SECRET_KEYS?)`);
    const blob = Buffer.from(ciphertext, 'base64');
    if (blob.length < IV_BYTES + TAG_BYTES) throw new Error('sealed secret too short');
    // The tag length is fixed: GCM would otherwise accept a truncated (forgeable) tag.
    const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAuthTag(blob.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    if (aad) decipher.setAAD(aad);
    return decipher.update(blob.subarray(IV_BYTES + TAG_BYTES), undefined, 'utf8') + decipher.final('utf8');
  }
}
