import { Injectable, PipeTransform } from '@nestjs/common';
import type { RequestParts } from '../../common/validation/request-input';
import { validateParameters } from '../../common/validation/validate-input';
import { webhookNameOf } from '../../webhooks/webhook-validation.pipes';
import { DeliveryLogQueryDto } from './dto/delivery-log-query.dto';
import { DeliveryPathDto } from './dto/delivery-path.dto';

/*
 * The delivery log's routes (docs/api.md 10.7), each through one pipe: the webhook's name first
 * (400 `invalid name`), then the query string (400 `bad request`) or the delivery's id (404).
 */

/** `GET …/deliveries`: the path's name, then the query string. */
@Injectable()
export class DeliveryLogQueryPipe implements PipeTransform<RequestParts, { name: string; query: DeliveryLogQueryDto }> {
  transform(parts: RequestParts) {
    const name = webhookNameOf(parts);
    return { name, query: validateParameters(DeliveryLogQueryDto, parts.query) };
  }
}

/** `…/deliveries/{id}` (read, retry): the path's name, then the delivery's id. */
@Injectable()
export class DeliveryPipe implements PipeTransform<RequestParts, { name: string; id: number }> {
  transform(parts: RequestParts) {
    const name = webhookNameOf(parts);
    return { name, id: validateParameters(DeliveryPathDto, parts.params).id };
  }
}
