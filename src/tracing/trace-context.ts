import { randomBytes } from 'node:crypto';

/*
 * W3C Trace Context (https://www.w3.org/TR/trace-context/), as docs/api.md 10.17 uses it: what a
 * producer's `traceparent` and `tracestate` headers say, read by the rules of the recommendation
 * (a malformed one is ignored, never an error), and the `traceparent` an attempt sends.
 */

/**
 * A trace context carried as a value (written as headers only at the wire, traceHeadersOf): the
 * trace, the span that what comes next hangs from, and the producer's `tracestate` to pass on as
 * received.
 */
export interface TraceContext {
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

/**
 * A producer's trace context headers read, once per request: its span as the parent, with its
 * `tracestate` only beside a valid `traceparent`; undefined for none or a malformed one.
 */
export function producerContextOf(
  traceparent: string | string[] | undefined,
  tracestate: string | string[] | undefined,
): TraceContext | undefined {
  const parent = parseTraceparent(traceparent);
  if (parent === undefined) return undefined;
  const traceState = parseTracestate(tracestate);
  const context = { traceId: parent.traceId, spanId: parent.parentId };
  return traceState === undefined ? context : { ...context, traceState };
}

export const newTraceId = (): string => randomNonZeroHex(16);
export const newSpanId = (): string => randomNonZeroHex(8);

function randomNonZeroHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (!/^0+$/.test(hex)) return hex;
  }
}

/** The headers of a request that carries `context` (an attempt's: the event's trace, the attempt's own span as parent, sampled). */
export function traceHeadersOf({ traceId, spanId, traceState }: TraceContext): { traceparent: string; tracestate?: string } {
  const traceparent = `00-${traceId}-${spanId}-01`;
  return traceState === undefined ? { traceparent } : { traceparent, tracestate: traceState };
}
