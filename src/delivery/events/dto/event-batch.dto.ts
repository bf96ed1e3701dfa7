import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateBy } from 'class-validator';
import { KeptAsSent } from '../../../common/validation/validation.decorators';
import { AcceptedEventDto, EventBodyDto } from './event.dto';
import { IdempotencyKey } from './idempotency-key.dto';

/** docs/api.md 10.1.1: a batch holds 1 to this many events. */
export const MAX_BATCH_EVENTS = 100;

/** One event of `POST {p}/events/batch` (docs/api.md 10.1.1): the body of 10.1, with its Idempotency-Key as a member. */
export class BatchEventDto extends EventBodyDto {
  @ApiPropertyOptional({
    pattern: '^[\\x21-\\x7e]{1,255}$',
    description: 'As the Idempotency-Key header of POST /events: the same key for the organization within 24 h answers as the first event',
  })
  @IdempotencyKey()
  idempotencyKey?: string;
}

/**
 * The body of `POST {p}/events/batch` and of `event send --file` (docs/api.md 10.1.1). The events
 * are KeptAsSent: each is checked as a body of its own (parseIncomingBatch), so that its `data`
 * stays as sent and its problems are named `events[i].…`.
 */
export class EventBatchDto {
  @ApiProperty({ type: [BatchEventDto], minItems: 1, maxItems: MAX_BATCH_EVENTS })
  @KeptAsSent()
  @ValidateBy({
    name: 'isEventList',
    validator: {
      validate: (value) => Array.isArray(value) && value.length >= 1 && value.length <= MAX_BATCH_EVENTS,
      defaultMessage: () => `must be a list of 1 to ${MAX_BATCH_EVENTS} events`,
    },
  })
  events: unknown[];
}

/** The answer of `POST {p}/events/batch` and `event send --file` (docs/api.md 10.1.1): each event's, in the order sent. */
export class AcceptedEventBatchDto {
  @ApiProperty({ type: [AcceptedEventDto] })
  events: AcceptedEventDto[];
}
