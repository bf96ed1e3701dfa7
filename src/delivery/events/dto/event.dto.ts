import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { JsonObjectAsSent, PositiveInteger } from '../../../common/validation/validation.decorators';
import { EVENT_FIELDS } from '../../../event-types/event-types';
import type { EventType } from '../../delivery.model';

/** Deeper `data` is refused: every attempt serializes it again (JSON.stringify recurses). */
export const MAX_DATA_DEPTH = 32;

/**
 * The body of `POST {p}/events` and `event send` (docs/api.md 10.1): exactly these three members.
 * `data` is the platform's own JSON and reaches the receivers as sent, so it is KeptAsSent, never
 * copied (keys such as `constructor` included).
 */
export class EventBodyDto {
  @ApiProperty({ enum: EVENT_FIELDS })
  @IsIn(EVENT_FIELDS, { message: `must be one of ${EVENT_FIELDS.join(', ')}` })
  type: EventType;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'The organization id' })
  @PositiveInteger()
  organization: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Any JSON object, delivered as sent; for card.updated `{"card", "status"}`, as the event catalogue (the webhooks) says',
  })
  @JsonObjectAsSent({ maxDepth: MAX_DATA_DEPTH })
  data: Record<string, unknown>;
}

/** The answer of `POST {p}/events` and `event send` (docs/api.md 10.1): what EventIngest returns. */
export class AcceptedEventDto {
  @ApiProperty({ pattern: '^evt_[A-Za-z0-9_-]{22}$' })
  id: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'One delivery per webhook the organization had that takes the event type (docs/api.md 10.13)',
  })
  deliveries: number;
}
