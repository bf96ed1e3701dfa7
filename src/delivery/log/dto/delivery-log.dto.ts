import { ApiProperty } from '@nestjs/swagger';
import { TEST_EVENT } from '../../../event-types/event-types';
import { DELIVERY_STATES, DeliveryState } from '../../delivery.model';

// The answers of docs/api.md 10.7, as the OpenAPI document describes them: DeliveryLogService,
// DeliveryReplayService and WebhookTestService return plain objects of these types.

export class AttemptDto {
  @ApiProperty({ format: 'date-time' })
  at: string;

  @ApiProperty({ type: 'integer' })
  durationMs: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The HTTP status, when the receiver answered' })
  status: number | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'null, timeout, dns unavailable, does not resolve, blocked address, connection failed, tls error, http <status> or internal error (the attempt could not be made: its secret or body no longer opens)',
  })
  error: string | null;
}

export class DeliveryEventDto {
  @ApiProperty()
  id: string;

  @ApiProperty()
  type: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class DeliveryDto {
  @ApiProperty({ type: 'integer' })
  id: number;

  @ApiProperty({ type: DeliveryEventDto })
  event: DeliveryEventDto;

  @ApiProperty({ enum: DELIVERY_STATES })
  state: DeliveryState;

  @ApiProperty({ type: 'integer' })
  attempts: number;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  nextAttemptAt: string | null;

  @ApiProperty({ type: AttemptDto, nullable: true })
  lastAttempt: AttemptDto | null;

  @ApiProperty({
    pattern: '^[0-9a-f]{32}$',
    description: "The W3C trace id of its event (docs/api.md 10.17): the producer's, or a new one; every attempt's traceparent carries it",
  })
  traceId: string;
}

export class DeliveryPageDto {
  @ApiProperty({ type: [DeliveryDto] })
  data: DeliveryDto[];

  @ApiProperty({ type: 'string', nullable: true, description: "The next page's cursor, or null on the last page" })
  next: string | null;
}

export class DeliveryDetailDto extends DeliveryDto {
  @ApiProperty({ type: [AttemptDto], maxItems: 100, description: 'The newest 100 attempts, newest first' })
  attemptLog: AttemptDto[];

  @ApiProperty({
    type: 'integer',
    description: 'Every attempt the delivery has had (as `attempts`): more than attemptLog shows past 100; at most 1 000 are kept',
  })
  attemptCount: number;
}

export class RetriedDeliveryDto {
  @ApiProperty({ type: 'integer' })
  id: number;

  @ApiProperty({ enum: ['pending'] })
  state: 'pending';
}

class TestEventDto {
  @ApiProperty()
  id: string;

  @ApiProperty({ enum: [TEST_EVENT] })
  type: typeof TEST_EVENT;
}

export class TestDeliveryDto {
  @ApiProperty({ type: 'integer', description: 'The delivery id' })
  id: number;

  @ApiProperty({ type: TestEventDto })
  event: TestEventDto;
}
