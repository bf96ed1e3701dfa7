import { createHash } from 'node:crypto';

/**
 * An event's trace as it is stored with the event (docs/api.md 10.17): its id and the span of its
 * acceptance (every attempt's span hangs from it), and the producer's `tracestate` to pass on.
 */
export interface EventTrace {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lowercase hex digits, not all zero. */
  readonly spanId: string;
  readonly traceState?: string;
}

/** The trace of an event accepted before traces were kept: derived from its id, the same on every read. */
export function derivedTrace(eventId: string): EventTrace {
  const hash = createHash('sha256').update(`trace:${eventId}`).digest('hex');
  return { traceId: hash.slice(0, 32), spanId: hash.slice(32, 48) };
}
