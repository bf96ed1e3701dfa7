import { ApiProperty } from '@nestjs/swagger';
import { EVENT_FIELDS } from '../../../event-types/event-types';

/** OpenAPI only: the body parseIncomingEvent checks by hand (docs/api.md 10.1). */
export class EventBodyDto {
  @ApiProperty({ enum: EVENT_FIELDS })
  type: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'The organization id' })
  organization: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Any JSON object, delivered as sent; for card.updated `{"card", "status"}`, as the event catalogue (the webhooks) says',
  })
  data: Record<string, unknown>;
}

/** The answer of `POST {p}/events` and `event send` (docs/api.md 10.1): what EventIngest returns. */
export class AcceptedEventDto {
  @ApiProperty({ pattern: '^evt_[A-Za-z0-9_-]{22}$' })
  id: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'One delivery per webhook the organization had' })
  deliveries: number;
}
