import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AUDIT_ACTIONS } from '../audit.model';

// The answer of docs/api.md 10.9, as the OpenAPI document describes it: AuditService returns
// plain objects of these types.

class AuditActorDto {
  @ApiProperty({ type: 'integer' })
  user: number;

  @ApiProperty({ type: 'string', nullable: true })
  email: string | null;
}

export class AuditEntryDto {
  @ApiProperty({ type: 'integer' })
  id: number;

  @ApiProperty({ format: 'date-time' })
  at: string;

  @ApiProperty({ type: AuditActorDto, nullable: true, description: 'null: the service itself (webhook.disabled)' })
  actor: AuditActorDto | null;

  @ApiProperty({ enum: AUDIT_ACTIONS })
  action: string;

  @ApiPropertyOptional({ description: 'The webhook changed: every entry but card.provisioned' })
  webhook?: string;

  @ApiPropertyOptional({ description: 'card.provisioned only: the id of the card added to a wallet, as a string' })
  card?: string;

  @ApiProperty({
    type: [String],
    description: 'The names of the members that changed (card.provisioned: the wallet, apple or google); never a URL, secret or token',
  })
  fields: string[];
}

export class AuditPageDto {
  @ApiProperty({ type: [AuditEntryDto] })
  data: AuditEntryDto[];

  @ApiProperty({ type: 'string', nullable: true })
  next: string | null;
}
