import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { Errors } from '../common/domain-error';

/** Where a page ended: the last id shown, or the sort key of the last row shown (the delivery log's creation time and id). */
export type PagePosition = number | readonly number[];

/**
 * The `next` cursors of the paged lists (the delivery log, the audit trail; docs/api.md 10.7,
 * 10.9): opaque and tamper-evident, the list's scope and the position of the last row shown in
 * base64url JSON, followed by their HMAC-SHA256 under a key derived from SECRET_KEY. A cursor
 * that is not one of ours, was changed, or belongs to another list (another webhook, filter or
 * organization) is 400 `bad request`. New rows sort before every position already handed out,
 * so a cursor stays valid while they arrive.
 */
@Injectable()
export class PageCursors {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    this.key = Buffer.from(hkdfSync('sha256', config.secretKeys.current, Buffer.alloc(0), 'platform-api page cursor', 32));
  }

  encode(scope: string, position: PagePosition): string {
    const body = Buffer.from(JSON.stringify([scope, position])).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The position a cursor names, when it is one of ours for this list (whose positions are all of type T). */
  decode<T extends PagePosition = number>(cursor: string, scope: string): T {
    const [body, mac, extra] = cursor.split('.');
    const given = Buffer.from(mac ?? '', 'base64url');
    const wanted = Buffer.from(this.mac(body ?? ''), 'base64url');
    if (extra !== undefined || given.length !== wanted.length || !timingSafeEqual(given, wanted))
      throw Errors.badRequest(['cursor: not a cursor of this list']);
    const [cursorScope, position] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [string, T];
    if (cursorScope !== scope) throw Errors.badRequest(['cursor: belongs to another list or filter']);
    return position;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
