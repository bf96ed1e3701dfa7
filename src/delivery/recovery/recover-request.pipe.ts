import { Injectable, PipeTransform } from '@nestjs/common';
import type { RequestParts } from '../../common/validation/request-input';
import { validateBody } from '../../common/validation/validate-input';
import { webhookNameOf } from '../../webhooks/webhook-validation.pipes';
import { idempotencyKeyOf } from '../events/incoming-event';
import { RecoverDeliveriesDto } from './dto/recovery.dto';
import type { RecoveryRequest } from './recovery-window';

/** What `POST {p}/webhook/{name}/recover` asks for, validated. */
export interface RecoverInput {
  readonly name: string;
  readonly request: RecoveryRequest;
  readonly idempotencyKey?: string;
}

/** `POST {p}/webhook/{name}/recover` (docs/api.md 10.14): the path's name, then the body (400 `bad request` unless `{"since", "until"?}`), then the Idempotency-Key. */
@Injectable()
export class RecoverRequestPipe implements PipeTransform<RequestParts, RecoverInput> {
  transform(parts: RequestParts): RecoverInput {
    const name = webhookNameOf(parts);
    const { since, until } = validateBody(RecoverDeliveriesDto, parts.body);
    // Node joins a repeated header into one string (only set-cookie is kept as a list).
    const idempotencyKey = idempotencyKeyOf(parts.headers['idempotency-key'] as string | undefined);
    return { name, request: until === undefined ? { since } : { since, until }, idempotencyKey };
  }
}
