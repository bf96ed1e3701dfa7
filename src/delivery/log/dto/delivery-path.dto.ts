import { Transform } from 'class-transformer';
import { IsInt } from 'class-validator';
import { Errors } from '../../../common/domain-error';
import { answeredWith } from '../../../common/validation/validation.decorators';

const ID = /^[1-9]\d{0,15}$/;

/**
 * The `{id}` of `…/deliveries/{id}` (docs/api.md 10.7): a positive integer. Anything else names
 * none of the webhook's deliveries, so it answers 404 `not found` as an unknown id does, with no
 * message, not 400.
 */
export class DeliveryPathDto {
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' && ID.test(value) ? Number(value) : value))
  @IsInt(answeredWith(() => Errors.notFound()))
  id: number;
}
