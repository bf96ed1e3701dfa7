import { createHash, randomBytes } from 'node:crypto';
import type { SecretBox } from '../../crypto/secret-box';
import type { EventTrace } from '../event-trace';
import { eventPayloadBinding } from '../delivery.model';
import type { NewEvent } from './events.repository';

const newEventId = (): string => `evt_${randomBytes(16).toString('base64url')}`;

/** An event's data serialized once, for both what its idempotency key compares and the body its attempts send. */
export interface SerializedEvent {
  readonly type: string;
  readonly organizationId: number;
  readonly dataJson: string;
  /** What an idempotency key compares: the SHA-256 of `JSON.stringify([type, organizationId, data])`. */
  readonly requestHash: string;
}

/** `data` is a JSON object (validated, or the service's own): its text is written into the hash's array and the body as is. */
export function serializedEvent(type: string, organizationId: number, data: object): SerializedEvent {
  const dataJson = JSON.stringify(data);
  // The bytes JSON.stringify([type, organizationId, data]) gives, so that the keys stored before still match.
  const requestHash = createHash('sha256')
    .update(`[${JSON.stringify(type)},${organizationId},${dataJson}]`)
    .digest('hex');
  return { type, organizationId, dataJson, requestHash };
}

/**
 * A new event, whoever sends it (ingest, the Outbox, a console's test): its id, its moment of
 * acceptance, its trace (docs/api.md 10.17), and the body every attempt sends, as written (sealed
 * to the event) and in clear (docs/api.md 10.3, 10.8).
 */
export function newEvent(
  secrets: SecretBox,
  { type, organizationId, dataJson, requestHash }: SerializedEvent,
  trace: EventTrace,
): { event: NewEvent; body: string } {
  const id = newEventId();
  const createdAt = new Date();
  // The bytes JSON.stringify({ type, timestamp, data }) gives, the data's text not made again.
  const body = `{"type":${JSON.stringify(type)},"timestamp":"${createdAt.toISOString()}","data":${dataJson}}`;
  const payload = secrets.seal(body, eventPayloadBinding(organizationId, id));
  const event = {
    id,
    organizationId,
    type,
    idempotencyKey: undefined,
    requestHash,
    payload,
    bodyBytes: Buffer.byteLength(body),
    createdAt,
    trace,
  };
  return { event, body };
}
