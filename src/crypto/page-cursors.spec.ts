import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../test/support/unit/domain-errors';
import type { AppConfig } from '../config/app-config';
import { PageCursors } from './page-cursors';

const cursors = new PageCursors({ secretKeys: { current: randomBytes(32) } } as unknown as AppConfig);
const anotherList = { status: 400, body: { code: 'bad request', message: ['cursor: belongs to another list or filter'] } };
const filters = { state: 'failed', type: 'card.updated', since: 1_767_225_600_000, until: null };

describe('PageCursors', () => {
  it('gives back the position and the filters a cursor was made with', () => {
    const cursor = cursors.encode('deliveries:7', [1_767_225_600_000, 42], filters);
    expect(cursors.decode(cursor, 'deliveries:7')).toEqual({ position: [1_767_225_600_000, 42], filters });
  });

  it('accepts filters given beside the cursor that are the ones it keeps, and ignores those not given', () => {
    const cursor = cursors.encode('deliveries:7', 42, filters);
    const given = { state: 'failed', type: null, since: 1_767_225_600_000, until: null };
    expect(cursors.decode(cursor, 'deliveries:7', given).filters).toEqual(filters);
  });

  it('refuses a filter given beside the cursor that differs from the one it keeps', () => {
    const cursor = cursors.encode('deliveries:7', 42, filters);
    expect(thrownBy(() => cursors.decode(cursor, 'deliveries:7', { ...filters, type: 'user.updated' }))).toEqual(anotherList);
  });

  it('refuses a filter given beside a cursor that keeps none for it', () => {
    const cursor = cursors.encode('deliveries:7', 42, filters);
    expect(thrownBy(() => cursors.decode(cursor, 'deliveries:7', { ...filters, until: 1_767_312_000_000 }))).toEqual(anotherList);
  });

  it("refuses another list's cursor", () => {
    expect(thrownBy(() => cursors.decode(cursors.encode('deliveries:8', 42), 'deliveries:7'))).toEqual(anotherList);
  });

  it('refuses a cursor whose content was changed', () => {
    const [body, mac] = cursors.encode('deliveries:7', 42, filters).split('.');
    const changed = Buffer.from(Buffer.from(body, 'base64url').toString().replace('failed', 'pending')).toString('base64url');
    expect(thrownBy(() => cursors.decode(`${changed}.${mac}`, 'deliveries:7'))).toEqual({
      status: 400,
      body: { code: 'bad request', message: ['cursor: not a cursor of this list'] },
    });
  });
});
