import { createHash, randomBytes } from 'node:crypto';
import type { SecretBox } from '../../crypto/secret-box';
import type { EventTrace } from '../event-trace';
import { eventPayloadBinding } from '../delivery.model';
import type { NewEvent } from './events.repository';

const newEventId = (): string => `evt_${randomBytes(16).toString('base64url')}`;

/** What an idempotency key compares: the event's type, organization and data. */
export const requestHashOf = (type: string, organizationId: number, data: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify([type, organizationId, data]))
    .digest('hex');

/**
 * A new event, whoever sends it (ingest, the Outbox, a console's test): its id, its moment of
 * acceptance, its trace (docs/api.md 10.17), and the body every attempt sends, as written (sealed
 * to the event) and in clear (docs/api.md 10.3, 10.8).
 */
export function newEvent(
  secrets: SecretBox,
  organizationId: number,
  type: string,
  data: unknown,
  trace: EventTrace,
  requestHash = requestHashOf(type, organizationId, data),
): { event: NewEvent; body: string } {
  const id = newEventId();
  const createdAt = new Date();
  const body = JSON.stringify({ type, timestamp: createdAt.toISOString(), data });
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
