import { IsIn, ValidateBy } from 'class-validator';
import { DEFAULT_PAGE_LIMIT, PageCursor, PageLimit } from '../../../common/page-query.dto';
import { MomentParameter, QueryParameter } from '../../../common/validation/query-parameter';
import { SENT_EVENT_TYPES, SentEventType } from '../../../event-types/event-types';
import { DELIVERY_STATES, DeliveryState } from '../../delivery.model';

/** `until` comes after `since`, when both are moments (a bad `since` is named on its own). */
const AfterSince = () =>
  ValidateBy({
    name: 'isAfterSince',
    validator: {
      validate: (until, args) => {
        const since = (args?.object as DeliveryLogQueryDto).since;
        return !(since instanceof Date) || !(until instanceof Date) || until > since;
      },
      defaultMessage: () => 'must be after since',
    },
  });

/**
 * `?limit=&cursor=&state=&type=&since=&until=` of the delivery log (docs/api.md 10.7). The page's
 * two parameters are declared here rather than inherited from PageQueryDto: class-validator
 * checks a subclass's own members first, and the answer names the problems in this order.
 */
export class DeliveryLogQueryDto {
  @PageLimit() limit: number = DEFAULT_PAGE_LIMIT;
  @PageCursor() cursor?: string;

  @QueryParameter(
    { type: 'string', enum: [...DELIVERY_STATES] },
    IsIn(DELIVERY_STATES, { message: `must be one of ${DELIVERY_STATES.join(', ')}` }),
  )
  state?: DeliveryState;

  @QueryParameter(
    { type: 'string', enum: [...SENT_EVENT_TYPES], description: 'The deliveries of this event type only' },
    IsIn(SENT_EVENT_TYPES, { message: `must be one of ${SENT_EVENT_TYPES.join(', ')}` }),
  )
  type?: SentEventType;

  @MomentParameter('The deliveries created at or after this moment only (ISO 8601 with Z or an offset)')
  since?: Date;

  @MomentParameter('The deliveries created before this moment only (ISO 8601 with Z or an offset); after since', AfterSince())
  until?: Date;
}
