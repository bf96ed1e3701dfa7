import { createHash, randomBytes } from 'node:crypto';

/*
 * W3C Trace Context (https://www.w3.org/TR/trace-context/), as docs/api.md 10.17 uses it: what a
 * producer's `traceparent` and `tracestate` headers say, read by the rules of the recommendation
 * (a malformed one is ignored, never an error), and the `traceparent` an attempt sends.
 */

/** An event's trace: its id, the span of its acceptance (every attempt's span hangs from it), and the producer's `tracestate` to pass on as received. */
export interface EventTrace {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lowercase hex digits, not all zero. */
  readonly spanId: string;
  readonly traceState?: string;
}

/** What a valid `traceparent` says: the trace, the producer's span, and whether it sampled it. */
export interface TraceParent {
  readonly traceId: string;
  readonly parentId: string;
  readonly sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
/** The recommendation's longest `tracestate` a receiver must take whole. */
export const MAX_TRACESTATE = 512;
/** A list member, `key=value` (the key simple or `tenant@system`), and the separators between them. */
const TRACESTATE_MEMBER =
  /^(?:[a-z0-9][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/**
 * A `traceparent` header's trace, or undefined when it is absent or malformed: version `ff`, ids
 * of all zeros, upper case, a version 00 with anything after its flags. A later version is read
 * by version 00's fields, as the recommendation says.
 */
export function parseTraceparent(header: string | string[] | undefined): TraceParent | undefined {
  if (typeof header !== 'string') return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (match === null) return undefined;
  const [, version, traceId, parentId, flags, rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined) || traceId === ZERO_TRACE || parentId === ZERO_SPAN) return undefined;
  return { traceId, parentId, sampled: (parseInt(flags, 16) & 1) === 1 };
}

/**
 * A `tracestate` header as received, when it may be passed on: present with a valid
 * `traceparent`, at most MAX_TRACESTATE characters, and a list of at most 32 well-formed members
 * (empty ones allowed); else undefined, and nothing is passed on.
 */
export function parseTracestate(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value === undefined || value.length > MAX_TRACESTATE) return undefined;
  const members = value
    .split(',')
    .map((member) => member.trim())
    .filter((member) => member !== '');
  if (members.length === 0 || members.length > 32 || !members.every((member) => TRACESTATE_MEMBER.test(member))) return undefined;
  return value;
}

/** What a producer's trace context headers give its events: their parent span, and the `tracestate` to pass on. */
export interface ProducerTrace {
  readonly parent?: TraceParent;
  readonly traceState?: string;
}

/** A producer's headers read: its span as the parent, and its `tracestate` only beside a valid `traceparent`; nothing for none or a malformed one. */
export function producerTraceOf(traceparent: string | string[] | undefined, tracestate: string | string[] | undefined): ProducerTrace {
  const parent = parseTraceparent(traceparent);
  if (parent === undefined) return {};
  const traceState = parseTracestate(tracestate);
  return traceState === undefined ? { parent } : { parent, traceState };
}

export const newTraceId = (): string => randomNonZeroHex(16);
export const newSpanId = (): string => randomNonZeroHex(8);

function randomNonZeroHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (!/^0+$/.test(hex)) return hex;
  }
}

/** The `traceparent` of an attempt: the event's trace, the attempt's own span as parent, sampled. */
export const traceparentOf = (traceId: string, spanId: string): string => `00-${traceId}-${spanId}-01`;

/** The trace of an event accepted before traces were kept: derived from its id, the same on every read. */
export function derivedTrace(eventId: string): EventTrace {
  const hash = createHash('sha256').update(`trace:${eventId}`).digest('hex');
  return { traceId: hash.slice(0, 32), spanId: hash.slice(32, 48) };
}
