import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { Errors } from '../common/domain-error';

/** Where a page ended: the last id shown, or the sort key of the last row shown (the delivery log's creation time and id). */
export type PagePosition = number | readonly number[];

/** The filters a list was asked with, which its cursors keep: each a value or null (not filtered). */
export type PageFilters = Readonly<Record<string, string | number | null>>;

/** What a cursor holds: where its page ended and the filters its list was asked with. */
export interface PageCursor<T extends PagePosition, F extends PageFilters> {
  readonly position: T;
  readonly filters: F;
}

/** A cursor of ours, not yet matched to the list it is presented to. */
export interface OpenedCursor<T extends PagePosition, F extends PageFilters> {
  readonly scope: string;
  readonly position: T;
  readonly filters: F | undefined;
}

const ANOTHER_LIST = 'cursor: belongs to another list or filter';

/**
 * The `next` cursors of the paged lists (the delivery log, the audit trail; docs/api.md 10.7,
 * 10.9): opaque and tamper-evident, the list's scope, the position of the last row shown and the
 * filters the list was asked with, in base64url JSON, followed by their HMAC-SHA256 under a key
 * derived from SECRET_KEY. A cursor keeps its filters: the next page is asked with the cursor
 * alone, or with filters that are the cursor's. A cursor that is not one of ours, was changed,
 * or belongs to another list (another webhook or organization) or another filter is 400
 * `bad request`. New rows sort before every position already handed out, so a cursor stays
 * valid while they arrive.
 */
@Injectable()
export class PageCursors {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    this.key = Buffer.from(hkdfSync('sha256', config.secretKeys.current, Buffer.alloc(0), 'platform-api page cursor', 32));
  }

  encode(scope: string, position: PagePosition, filters: PageFilters = {}): string {
    const body = Buffer.from(JSON.stringify([scope, position, filters])).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /**
   * What a cursor holds, when it is one of ours for this list (whose positions are all of type
   * T, whose filters of type F) and every filter `given` beside it (null: not given) is the one
   * it keeps.
   */
  decode<T extends PagePosition = number, F extends PageFilters = PageFilters>(cursor: string, scope: string, given?: F): PageCursor<T, F> {
    return this.within(this.open<T, F>(cursor), scope, given);
  }

  /**
   * A cursor checked to be one of ours, unchanged, before the list it pages is looked up: a
   * cursor that is not is 400 whether or not that list exists (docs/api.md 4: the query is
   * validated before the webhook is looked for).
   */
  open<T extends PagePosition = number, F extends PageFilters = PageFilters>(cursor: string): OpenedCursor<T, F> {
    const [body, mac, extra] = cursor.split('.');
    const presented = Buffer.from(mac ?? '', 'base64url');
    const wanted = Buffer.from(this.mac(body ?? ''), 'base64url');
    if (extra !== undefined || presented.length !== wanted.length || !timingSafeEqual(presented, wanted))
      throw Errors.badRequest(['cursor: not a cursor of this list']);
    const [scope, position, filters] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [string, T, F?];
    return { scope, position, filters };
  }

  /** An opened cursor's position and filters, when it belongs to this list and every filter `given` beside it is the one it keeps. */
  within<T extends PagePosition, F extends PageFilters>(cursor: OpenedCursor<T, F>, scope: string, given?: F): PageCursor<T, F> {
    const { filters } = cursor;
    if (cursor.scope !== scope || filters === undefined) throw Errors.badRequest([ANOTHER_LIST]);
    for (const [name, value] of Object.entries(given ?? {})) {
      if (value !== null && value !== (filters[name] ?? null)) throw Errors.badRequest([ANOTHER_LIST]);
    }
    return { position: cursor.position, filters };
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
