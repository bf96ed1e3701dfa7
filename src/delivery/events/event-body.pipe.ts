import { Injectable, PipeTransform } from '@nestjs/common';
import { IncomingEvent, parseIncomingEvent } from './incoming-event';

/** The body of `POST {p}/events` (docs/api.md 10.1): the parser `event send` calls too, as a pipe. */
@Injectable()
export class EventBodyPipe implements PipeTransform<unknown, IncomingEvent> {
  transform(body: unknown): IncomingEvent {
    return parseIncomingEvent(body);
  }
}
