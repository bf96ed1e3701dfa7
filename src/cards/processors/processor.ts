import { version } from '../../../package.json';
import type { CardNetwork } from '../entities/card.entity';

// What every card processor adapter speaks (docs/api.md 6.1): the wallet extension's requests as
// validated, the payloads it is answered, the card as the processor knows it, and the one shape
// of an adapter, so that a processor is one file beside marqeta.processor.ts and a line in
// processors.ts.

/** The wallets a card is pushed to. */
export const WALLETS = ['apple', 'google'] as const;
export type Wallet = (typeof WALLETS)[number];

export const APPLE_DEVICE_TYPES = ['phone', 'watch', 'tablet'] as const;
export type AppleDeviceType = (typeof APPLE_DEVICE_TYPES)[number];

/** `POST {p}/card/{id}/provisioning/apple`'s body, validated: certificates leaf first, base64 throughout. */
export interface ApplePushRequest {
  readonly certificates: readonly string[];
  readonly nonce: string;
  readonly nonceSignature: string;
  readonly deviceType: AppleDeviceType;
}

/** `POST {p}/card/{id}/provisioning/google`'s body, validated. */
export interface GooglePushRequest {
  readonly clientDeviceId: string;
  readonly clientWalletAccountId: string;
}

/** What Apple's PKAddPaymentPassRequest takes, base64, as the processor gave it. */
export interface ApplePayload {
  readonly activationData: string;
  readonly encryptedPassData: string;
  readonly ephemeralPublicKey: string;
}

/** What Google's PushTokenizeRequest takes. */
export interface GooglePayload {
  readonly opaquePaymentCard: string;
  readonly network: string;
  readonly tokenServiceProvider: string;
  readonly displayName: string;
  readonly lastDigits: string;
}

export interface PushRequests {
  readonly apple: ApplePushRequest;
  readonly google: GooglePushRequest;
}

export interface PushPayloads {
  readonly apple: ApplePayload;
  readonly google: GooglePayload;
}

/** A card as its processor knows it, and what a wallet shows of it. */
export interface CardOnFile {
  readonly processorToken: string;
  readonly title: string;
  readonly cardholderName: string;
  readonly primaryAccountSuffix: string;
  readonly network: CardNetwork;
}

/** The program's credentials at a processor, as the operator's file gave them (names as the adapter declares). */
export type ProcessorCredentials = Readonly<Record<string, string>>;

/** One wallet's call to a processor: the request's path (below the issuer's base URL) and JSON body, and the payload of its 2xx answer. */
export interface WalletCall<W extends Wallet> {
  request(card: CardOnFile, push: PushRequests[W]): { readonly path: string; readonly body: object };
  /** undefined when the answer does not carry the payload (docs/api.md 6.1: 503 `issuer unavailable`). */
  payload(answer: unknown, card: CardOnFile): PushPayloads[W] | undefined;
}

/**
 * A card processor, from its public API reference. Its answers' statuses are read alike for every
 * processor (processor-outcome.ts); the adapter maps the requests and the 2xx bodies.
 */
export type ProcessorAdapter = { readonly [W in Wallet]: WalletCall<W> } & {
  /** The members of the operator's credentials file (docs/api.md 8), each a string. */
  readonly credentialNames: readonly string[];
  /** The `Authorization` header's value for these credentials. */
  authorization(credentials: ProcessorCredentials): string;
};

/** The version of the app making a provisioning request, where a processor asks for one (docs/api.md 6.1). */
export const PROVISIONING_APP_VERSION = `platform-api/${version}`;

/** A non-empty string, or undefined: how a processor's answer is read, member by member. */
export const textOf = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** A member of a JSON object, when `value` is one. */
export const memberOf = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;

/** Apple's payload from `source`, each value under the processor's name for it; undefined unless all three are there. */
export function applePayloadOf(source: unknown, names: { readonly [K in keyof ApplePayload]: string }): ApplePayload | undefined {
  const activationData = textOf(memberOf(source, names.activationData));
  const encryptedPassData = textOf(memberOf(source, names.encryptedPassData));
  const ephemeralPublicKey = textOf(memberOf(source, names.ephemeralPublicKey));
  return activationData && encryptedPassData && ephemeralPublicKey ? { activationData, encryptedPassData, ephemeralPublicKey } : undefined;
}

const NETWORKS: Record<CardNetwork, { network: string; tokenServiceProvider: string }> = {
  visa: { network: 'VISA', tokenServiceProvider: 'TOKEN_PROVIDER_VISA' },
  mastercard: { network: 'MASTERCARD', tokenServiceProvider: 'TOKEN_PROVIDER_MASTERCARD' },
};

/**
 * Google's payload: the processor's opaque payment card, and the members its answer does not
 * carry (or carries in a form Google does not take) from the card (docs/api.md 6.1).
 */
export function googlePayloadOf(
  opaquePaymentCard: string,
  card: CardOnFile,
  carried: { network?: string; tokenServiceProvider?: string; displayName?: string; lastDigits?: string } = {},
): GooglePayload {
  const known = NETWORKS[card.network];
  const network = carried.network?.toUpperCase();
  const networks = Object.values(NETWORKS);
  return {
    opaquePaymentCard,
    network: networks.some((n) => n.network === network) ? network! : known.network,
    tokenServiceProvider: networks.some((n) => n.tokenServiceProvider === carried.tokenServiceProvider)
      ? carried.tokenServiceProvider!
      : known.tokenServiceProvider,
    displayName: carried.displayName ?? card.title,
    lastDigits: carried.lastDigits !== undefined && /^\d{4}$/.test(carried.lastDigits) ? carried.lastDigits : card.primaryAccountSuffix,
  };
}
