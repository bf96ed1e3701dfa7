import { Matches } from 'class-validator';
import { Optional } from '../../../common/validation/validation.decorators';

/** The `Idempotency-Key` header (docs/api.md 10.1, 10.14), named as clients send it: absent, or 1-255 visible ASCII characters. */
export class IdempotencyKeyDto {
  @Optional()
  @Matches(/^[\x21-\x7e]{1,255}$/, { message: 'must be 1 to 255 visible ASCII characters' })
  'Idempotency-Key'?: string;
}
