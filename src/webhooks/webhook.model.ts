import type { EventField, EventSubscription } from '../event-types/event-types';
import { randomBytes } from 'node:crypto';
import type { SecretBinding } from '../crypto/secret-box';
import type { HeaderList } from './custom-headers';
import type { AuthView, ReceiverAuth } from './receiver-auth';

/** A webhook's URL fields: `url`, and one per event type (docs/api.md 5, seed "Events"). */
export type UrlField = 'url' | EventField;

/** The member of `auth` that is a URL (docs/api.md 10.16): checked and resolved with the webhook's own, under this name. */
export const TOKEN_URL_FIELD = 'auth.tokenUrl';

/** A URL a write checks: the webhook's, and its token URL. */
export type UrlMember = UrlField | typeof TOKEN_URL_FIELD;

/** The groups of the JSON shape and their members, in the order answers list them. */
export const EVENT_GROUPS = {
  transaction: ['created', 'updated', 'completed'],
  card: ['updated'],
  user: ['updated'],
} as const;

export const WEBHOOK_NAME_PATTERN = /^[a-z0-9-]{1,64}$/;

/** A URL that passed the static rules: its normalized href, and its host when that is a name. */
export interface CheckedUrl {
  readonly href: string;
  readonly hostname?: string;
}

/** docs/api.md 10.10: a webhook's `rateLimit`, deliveries per second. */
export const MIN_RATE_LIMIT = 1;
export const MAX_RATE_LIMIT = 10_000;

/**
 * docs/api.md 10.16: a webhook's receiver authentication as a write gives it: what reads show,
 * the settings an attempt opens (sealed: the secret or key is among them), and for oauth2 the
 * token URL as checked, to be resolved with the request's other URLs.
 */
export interface AuthDraft {
  readonly view: AuthView;
  readonly settings: ReceiverAuth;
  readonly tokenUrl?: CheckedUrl;
}

/**
 * What a create (or legacy create-or-update) stores; a legacy update keeps the rate limit, the
 * event types, the headers, the order and the auth it does not give.
 */
export interface WebhookDraft {
  readonly url: CheckedUrl;
  readonly events: Partial<Record<EventField, CheckedUrl>>;
  readonly rateLimit?: number;
  /** docs/api.md 10.13: the event types it takes, as sent (absent: every type). */
  readonly eventTypes?: readonly EventSubscription[];
  /** docs/api.md 10.15: its custom headers, as sent. */
  readonly headers?: HeaderList;
  /** docs/api.md 10.18: one attempt at a time, in order (absent: as stored, false for a new webhook). */
  readonly ordered?: boolean;
  /** docs/api.md 10.16: how it authenticates to its receiver (absent: as stored, none for a new webhook). */
  readonly auth?: AuthDraft;
}

/** A JSON Merge Patch flattened to fields: absent keeps, null clears. */
export interface WebhookPatch {
  readonly url?: CheckedUrl;
  readonly events: Partial<Record<EventField, CheckedUrl | null>>;
  readonly rateLimit?: number | null;
  readonly eventTypes?: readonly EventSubscription[] | null;
  /** Merged into the stored headers (a null member removes one); null removes them all. */
  readonly headers?: Readonly<Record<string, string | null>> | null;
  /** null: not ordered, as false. */
  readonly ordered?: boolean | null;
  /** Replaced as a whole; null removes it. */
  readonly auth?: AuthDraft | null;
}

/**
 * A stored webhook: its URLs (hrefs; unset events are absent), its rate limit, the event types it
 * takes and the names of its custom headers when set, and whether it is disabled.
 */
export interface StoredWebhook {
  readonly url: string;
  readonly events: Partial<Record<EventField, string>>;
  readonly rateLimit?: number;
  readonly eventTypes?: readonly string[];
  readonly headerNames?: readonly string[];
  /** Whether its deliveries go in order; absent: not given (a draft), as stored. */
  readonly ordered?: boolean;
  /** What reads show of its receiver authentication, when it has one. */
  readonly auth?: AuthView;
  readonly disabled?: true;
}

/**
 * What a webhook's sealed signing secrets are bound to (SecretBinding): the organization and the
 * name, which never changes; the previous secret of a rotation has a row of its own (`#` is not
 * a name character), so the two columns cannot be swapped.
 */
export const signingSecretBinding = (organizationId: number, name: string, which: 'current' | 'previous' = 'current'): SecretBinding => ({
  table: 'webhooks',
  organizationId,
  row: which === 'current' ? name : `${name}#previous`,
});

/** A webhook's sealed custom headers (docs/api.md 10.15) belong to it as its secrets do, in a row of their own. */
export const customHeadersBinding = (organizationId: number, name: string): SecretBinding => ({
  table: 'webhooks',
  organizationId,
  row: `${name}#headers`,
});

/** A webhook's sealed receiver authentication (docs/api.md 10.16), its client secret or key among it, in a row of its own. */
export const receiverAuthBinding = (organizationId: number, name: string): SecretBinding => ({
  table: 'webhooks',
  organizationId,
  row: `${name}#auth`,
});

/** docs/api.md 10.7: how long a rotated-out secret keeps signing, by default and at most. */
export const DEFAULT_GRACE_SECONDS = 86_400;
export const MAX_GRACE_SECONDS = 604_800;

/** A signing secret: `whsec_` and the base64 of 32 random bytes (docs/api.md 5). */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
