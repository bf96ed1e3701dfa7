import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

// The body and answer of docs/api.md 10.14, as the OpenAPI document describes them: the body is
// read by parseRecoveryRequest, and DeliveryRecoveryService returns plain objects of the answer's type.

export class RecoverDeliveriesDto {
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    description:
      'Recover the failed deliveries created at or after this moment (ISO 8601 with Z or an offset; within DELIVERY_RETENTION_DAYS)',
  })
  since: string;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    description: 'And before this moment (not in the future; after since); default now',
  })
  until?: string;
}

export class RecoveredDeliveriesDto {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'How many failed deliveries are pending again (sent from now on, spread by the rate limit and fair shares)',
  })
  deliveries: number;
}
