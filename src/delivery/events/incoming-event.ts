import { validateBody, validateParameters } from '../../common/validation/validate-input';
import type { EventType } from '../delivery.model';
import { EventBodyDto } from './dto/event.dto';
import { IdempotencyKeyDto } from './dto/idempotency-key.dto';

/** An event as the platform API hands it in (docs/api.md 10.1), validated. */
export interface IncomingEvent {
  readonly type: EventType;
  readonly organization: number;
  readonly data: Record<string, unknown>;
}

/**
 * An event for ingest, from `POST {p}/events` (EventRequestPipe) or `event send` (the CLI): its
 * body through EventBodyDto, `data` exactly as sent. Every problem is 400 `bad request`, each
 * named in `message`.
 */
export function parseIncomingEvent(body: unknown): IncomingEvent {
  const { type, organization, data } = validateBody(EventBodyDto, body);
  return { type, organization, data };
}

/** `Idempotency-Key` (the header, or `event send --idempotency-key`): 1-255 visible ASCII characters, or absent; else 400 bad request. */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  return validateParameters(IdempotencyKeyDto, { 'Idempotency-Key': header })['Idempotency-Key'];
}
