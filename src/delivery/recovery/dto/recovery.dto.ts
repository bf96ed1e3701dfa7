import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsoMoment, Optional, Required } from '../../../common/validation/validation.decorators';

// The body and answer of docs/api.md 10.14: the body's rules and its OpenAPI description, and the
// answer's type, of which DeliveryRecoveryService returns plain objects.

/** A moment of the window, ISO 8601 with Z or an offset. */
const WindowMoment = (description: string, { required }: { required: boolean }) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({ type: 'string', format: 'date-time', description }),
    required ? Required() : Optional(),
    IsoMoment(),
  );

/** `{"since"}` or `{"since", "until"}`; that the window lies within the deliveries kept is recoveryWindowOf's to say. */
export class RecoverDeliveriesDto {
  @WindowMoment(
    'Recover the failed deliveries created at or after this moment (ISO 8601 with Z or an offset; within DELIVERY_RETENTION_DAYS)',
    { required: true },
  )
  since: Date;

  @WindowMoment('And before this moment (not in the future; after since); default now', { required: false })
  until?: Date;
}

export class RecoveredDeliveriesDto {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'How many failed deliveries are pending again (sent from now on, spread by the rate limit and fair shares)',
  })
  deliveries: number;
}
