import { Injectable, PipeTransform } from '@nestjs/common';
import type { RequestParts } from '../../common/validation/request-input';
import { BatchEvent, parseIncomingBatch } from './incoming-batch';
import { idempotencyKeyOf, IncomingEvent, parseIncomingEvent } from './incoming-event';

/** `POST {p}/events` (docs/api.md 10.1): the body (the parser `event send` calls too), then the Idempotency-Key. */
@Injectable()
export class EventRequestPipe implements PipeTransform<RequestParts, { event: IncomingEvent; idempotencyKey?: string }> {
  transform({ body, headers }: RequestParts) {
    const event = parseIncomingEvent(body);
    // Node joins a repeated header into one string (only set-cookie is kept as a list).
    return { event, idempotencyKey: idempotencyKeyOf(headers['idempotency-key'] as string | undefined) };
  }
}

/** `POST {p}/events/batch` (docs/api.md 10.1.1): the body, each event's key inside it (the parser `event send --file` calls too). */
@Injectable()
export class EventBatchRequestPipe implements PipeTransform<RequestParts, BatchEvent[]> {
  transform({ body }: RequestParts): BatchEvent[] {
    return parseIncomingBatch(body);
  }
}
