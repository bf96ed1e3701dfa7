import { ApiProperty } from '@nestjs/swagger';

// OpenAPI only: the shapes of docs/api.md 10.9 (AuditService builds them).

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

  @ApiProperty({ type: AuditActorDto })
  actor: AuditActorDto;

  @ApiProperty({ enum: ['webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'delivery.retried', 'webhook.tested'] })
  action: string;

  @ApiProperty()
  webhook: string;

  @ApiProperty({ type: [String], description: 'The names of the members that changed; never a URL, secret or token' })
  fields: string[];
}

export class AuditPageDto {
  @ApiProperty({ type: [AuditEntryDto] })
  data: AuditEntryDto[];

  @ApiProperty({ type: 'string', nullable: true })
  next: string | null;
}
