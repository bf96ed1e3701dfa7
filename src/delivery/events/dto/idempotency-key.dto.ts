import { applyDecorators } from '@nestjs/common';
import { Matches } from 'class-validator';
import { Optional } from '../../../common/validation/validation.decorators';

/** An idempotency key (docs/api.md 10.1): absent, or 1-255 visible ASCII characters. */
export const IdempotencyKey = () =>
  applyDecorators(Optional(), Matches(/^[\x21-\x7e]{1,255}$/, { message: 'must be 1 to 255 visible ASCII characters' }));

/** The `Idempotency-Key` header (docs/api.md 10.1, 10.14), named as clients send it. */
export class IdempotencyKeyDto {
  @IdempotencyKey()
  'Idempotency-Key'?: string;
}
