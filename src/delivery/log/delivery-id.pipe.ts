import { Injectable, PipeTransform } from '@nestjs/common';
import { Errors } from '../../common/domain-error';

/**
 * The `{id}` of `…/deliveries/{id}` (docs/api.md 10.7): a positive integer. Anything else names
 * none of the webhook's deliveries, so it answers 404 `not found` as an unknown id does, not 400.
 */
@Injectable()
export class DeliveryIdPipe implements PipeTransform<string, number> {
  transform(id: string): number {
    if (!/^[1-9]\d{0,15}$/.test(id)) throw Errors.notFound();
    return Number(id);
  }
}
