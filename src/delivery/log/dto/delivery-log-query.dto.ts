import { IsIn } from 'class-validator';
import { DEFAULT_PAGE_LIMIT, PageCursor, PageLimit } from '../../../common/page-query.dto';
import { QueryParameter } from '../../../common/query-parameter';
import { DELIVERY_STATES, DeliveryState } from '../../delivery.model';

/**
 * `?limit=&cursor=&state=` of the delivery log (docs/api.md 10.7). The page's two parameters are
 * declared here rather than inherited from PageQueryDto: class-validator checks a subclass's own
 * members first, and the answer names `limit`'s problem before `state`'s.
 */
export class DeliveryLogQueryDto {
  @PageLimit() limit: number = DEFAULT_PAGE_LIMIT;
  @PageCursor() cursor?: string;

  @QueryParameter(
    { type: 'string', enum: [...DELIVERY_STATES] },
    IsIn(DELIVERY_STATES, { message: `must be one of ${DELIVERY_STATES.join(', ')}` }),
  )
  state?: DeliveryState;
}
