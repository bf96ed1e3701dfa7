import { Errors } from '../../common/domain-error';
import { EVENT_FIELDS } from '../../event-types/event-types';
import type { EventType } from '../delivery.model';

/** An event as the platform API hands it in (docs/api.md 10.1), validated. */
export interface IncomingEvent {
  readonly type: EventType;
  readonly organization: number;
  readonly data: Record<string, unknown>;
}

const MEMBERS = ['type', 'organization', 'data'];
/** Deeper `data` is refused: every attempt serializes it again (JSON.stringify recurses). */
export const MAX_DATA_DEPTH = 32;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function depthOf(root: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_DATA_DEPTH) return deepest;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * An event for ingest, from `POST {p}/events` (EventBodyPipe) or `event send` (the CLI): exactly
 * `{type, organization, data}`. Checked by hand rather than with class-validator: `data` is the
 * platform's own JSON and must reach the receivers exactly as sent, which class-transformer's
 * copy would not guarantee (it drops keys such as `constructor`); the three members are simple
 * enough to check directly. Every problem is `bad request`, each named in `message`.
 */
export function parseIncomingEvent(body: unknown): IncomingEvent {
  if (!isPlainObject(body)) throw Errors.badRequest(['body must be a JSON object']);
  const problems = Object.keys(body)
    .filter((key) => !MEMBERS.includes(key))
    .map((key) => `${key}: unknown member`);
  const { type, organization, data } = body;
  if (typeof type !== 'string' || !(EVENT_FIELDS as readonly string[]).includes(type)) {
    problems.push(`type: must be one of ${EVENT_FIELDS.join(', ')}`);
  }
  if (typeof organization !== 'number' || !Number.isSafeInteger(organization) || organization < 1) {
    problems.push('organization: must be a positive integer');
  }
  if (!isPlainObject(data)) problems.push('data: must be a JSON object');
  else if (depthOf(data) > MAX_DATA_DEPTH) problems.push(`data: must be at most ${MAX_DATA_DEPTH} levels deep`);
  if (problems.length > 0) throw Errors.badRequest(problems);
  return { type: type as EventType, organization: organization as number, data: data as Record<string, unknown> };
}

/** `Idempotency-Key` (the header, or `event send --idempotency-key`): 1-255 visible ASCII characters, or absent; else 400 bad request. */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(header)) throw Errors.badRequest(['Idempotency-Key: must be 1 to 255 visible ASCII characters']);
  return header;
}
