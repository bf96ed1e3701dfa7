import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../../test/support/unit/domain-errors';
import { RecoverRequestPipe } from './recover-request.pipe';

const badRequest = (...message: string[]) => ({ status: 400, body: { code: 'bad request', message } });
const MOMENT_RULE = 'must be an ISO 8601 date and time with Z or an offset, such as 2026-01-15T09:30:00Z, or a date (its midnight UTC)';

/** What `POST …/webhook/hook/recover` with this body asks for (the order of the checks is webhook-recovery.controller.spec.ts's). */
const recover = (body: unknown, headers: Record<string, string> = {}) =>
  new RecoverRequestPipe().transform({ params: { name: 'hook' }, query: {}, body, headers });

describe('RecoverRequestPipe (docs/api.md 10.14)', () => {
  it('reads since, and until when given', () => {
    expect(recover({ since: '2026-03-01T10:00:00Z' }).request).toStrictEqual({ since: new Date('2026-03-01T10:00:00Z') });
    expect(recover({ since: '2026-03-01T10:00:00Z', until: '2026-03-01T13:00:00+02:00' }).request).toStrictEqual({
      since: new Date('2026-03-01T10:00:00Z'),
      until: new Date('2026-03-01T11:00:00Z'),
    });
  });

  it('returns the name and the Idempotency-Key beside the request', () => {
    expect(recover({ since: '2026-03-01T10:00:00Z' }, { 'idempotency-key': 'k-1' })).toMatchObject({ name: 'hook', idempotencyKey: 'k-1' });
  });

  it.each([
    ['no body', undefined, ['since: is required']],
    ['an empty body', {}, ['since: is required']],
    ['a body that is not an object', ['2026-03-01T10:00:00Z'], ['body: must be a JSON object']],
    ['a local time', { since: '2026-03-01T10:00:00' }, [`since: ${MOMENT_RULE}`]],
    ['a number', { since: 1772359200 }, [`since: ${MOMENT_RULE}`]],
    ['a null since', { since: null }, [`since: ${MOMENT_RULE}`]],
    ['a null until', { since: '2026-03-01T10:00:00Z', until: null }, [`until: ${MOMENT_RULE}`]],
    ['an unknown member', { since: '2026-03-01T10:00:00Z', state: 'failed' }, ['state: unknown member']],
    ['everything wrong at once', { from: 1, until: 'later' }, ['from: unknown member', 'since: is required', `until: ${MOMENT_RULE}`]],
  ])('refuses %s with 400 bad request', (_, body, message) => {
    expect(thrownBy(() => recover(body))).toEqual(badRequest(...message));
  });
});
