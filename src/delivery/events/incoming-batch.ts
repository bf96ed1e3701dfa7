import { Errors } from '../../common/domain-error';
import { Problems } from '../../common/validation/problems';
import { checkBody, validateBody } from '../../common/validation/validate-input';
import { BatchEventDto, EventBatchDto } from './dto/event-batch.dto';
import type { IncomingEvent } from './incoming-event';

/** docs/api.md 10.1.1: an event of a batch is at most as large as 10.1's body may be. */
export const MAX_BATCH_EVENT_BYTES = 256 * 1024;

/** An event of a batch (docs/api.md 10.1.1), validated: an event as 10.1's, with its idempotency key. */
export interface BatchEvent extends IncomingEvent {
  readonly idempotencyKey?: string;
}

/**
 * A batch for ingest, from `POST {p}/events/batch` or `event send --file`: `{"events": […]}`,
 * each event through BatchEventDto (the rules of 10.1's body) and named `events[i]` in every
 * problem, all of them in one 400 `bad request` with each key used twice for one organization
 * (the first 20 listed, then how many more: docs/api.md 7);
 * then 413 `payload too large` for each event over 256 KiB of JSON (measured once it is valid:
 * its `data` is then at most 32 levels deep, which JSON.stringify takes).
 */
export function parseIncomingBatch(body: unknown): BatchEvent[] {
  const { events: sent } = validateBody(EventBatchDto, body);
  const problems = new Problems();
  const parsed = sent.map((element, i): BatchEvent | undefined => {
    const event = checkBody(BatchEventDto, element, `events[${i}]`);
    if (!event.ok) {
      if (event.answer !== undefined) throw event.answer(event.problems.messages);
      problems.addAll(event.problems);
      return undefined;
    }
    const { type, organization, data, idempotencyKey } = event.value;
    return { type, organization, data, ...(idempotencyKey !== undefined && { idempotencyKey }) };
  });
  for (const problem of keysUsedTwice(parsed)) problems.add(problem);
  if (problems.count > 0) throw Errors.badRequest(problems.messages);
  const tooLarge = sent.flatMap((element, i) =>
    Buffer.byteLength(JSON.stringify(element)) > MAX_BATCH_EVENT_BYTES ? [`events[${i}]: must be at most 256 KiB of JSON`] : [],
  );
  if (tooLarge.length > 0) throw Errors.payloadTooLarge(...tooLarge);
  return parsed as BatchEvent[];
}

/** A key names one event of an organization (docs/api.md 10.1.1): each later use of it in the batch, named (invalid events aside). */
function keysUsedTwice(events: readonly (BatchEvent | undefined)[]): string[] {
  const first = new Map<string, number>();
  return events.flatMap((event, i) => {
    if (event?.idempotencyKey === undefined) return [];
    const key = JSON.stringify([event.organization, event.idempotencyKey]);
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, i);
    return earlier === undefined ? [] : [`events[${i}].idempotencyKey: used by events[${earlier}] too, for the same organization`];
  });
}

/** `events[i].<problem>` for each event of a batch that has one (docs/api.md 10.1.1: an answer names each event it concerns). */
export function eachEvent<E>(events: readonly E[], problemOf: (event: E, i: number) => string | false): string[] {
  return events.flatMap((event, i) => {
    const problem = problemOf(event, i);
    return problem === false ? [] : [`events[${i}].${problem}`];
  });
}
