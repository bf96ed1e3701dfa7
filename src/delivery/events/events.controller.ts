import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, PlatformApi } from '../../auth/auth.decorators';
import type { PlatformCaller } from '../../identity/caller';
import { refuseBatchOutsideKey, refuseOrganizationOutsideKey } from '../../auth/platform-scope';
import { ApiErrorResponses } from '../../http/openapi-errors';
import { RequestInput } from '../../common/validation/request-input';
import { AcceptedEventDto, EventBodyDto } from './dto/event.dto';
import { AcceptedEventBatchDto, EventBatchDto } from './dto/event-batch.dto';
import { EventBatchRequestPipe, EventRequestPipe } from './event-request.pipe';
import { EventIngest } from './event-ingest.service';
import type { BatchEvent } from './incoming-batch';
import type { IncomingEvent } from './incoming-event';
import { RequestTrace, TraceContextHeaders } from '../../tracing/request-trace.decorator';
import type { TraceContext } from '../../tracing/trace-context';

/** The errors of both routes (docs/api.md 10.1, 10.1.1): the same checks, of one event or of each. */
const EventErrorResponses = () =>
  ApiErrorResponses({
    400: ['bad request'],
    403: ['forbidden'],
    404: ['not found'],
    409: ['idempotency conflict'],
    // The body over its limit (256 KiB, a batch's 1 MiB), or an event of a batch over 256 KiB.
    413: ['payload too large'],
    415: ['unsupported media type'],
    // The key's request limit (the class's) and the organization's backpressure (docs/api.md 10.10).
    429: ['rate limited', 'queue full'],
  });

@ApiTags('events')
@PlatformApi()
@Controller('events')
export class EventsController {
  constructor(private readonly ingest: EventIngest) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Hand in an event: it is stored with one delivery per webhook of the organization that takes its type, before the answer',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: '1-255 visible ASCII characters; the same key within 24 h answers as the first call',
  })
  @TraceContextHeaders()
  @ApiBody({ type: EventBodyDto })
  @ApiAcceptedResponse({ type: AcceptedEventDto })
  @EventErrorResponses()
  acceptEvent(
    @Caller() caller: PlatformCaller,
    @RequestInput(EventRequestPipe) { event, idempotencyKey }: { event: IncomingEvent; idempotencyKey?: string },
    @RequestTrace() trace?: TraceContext,
  ): Promise<AcceptedEventDto> {
    refuseOrganizationOutsideKey(caller, event.organization);
    return this.ingest.accept(event, idempotencyKey, trace);
  }

  @Post('batch')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Hand in 1-100 events at once: all stored in one transaction, each with its deliveries, or none; answered in the order sent',
  })
  @TraceContextHeaders()
  @ApiBody({ type: EventBatchDto })
  @ApiAcceptedResponse({ type: AcceptedEventBatchDto })
  @EventErrorResponses()
  acceptEventBatch(
    @Caller() caller: PlatformCaller,
    @RequestInput(EventBatchRequestPipe) events: BatchEvent[],
    @RequestTrace() trace?: TraceContext,
  ): Promise<AcceptedEventBatchDto> {
    refuseBatchOutsideKey(caller, events);
    return this.ingest.acceptBatch(events, trace);
  }
}
