import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { Errors } from '../common/domain-error';

/**
 * The `next` cursors of the paged lists (the delivery log, the audit trail; docs/api.md 10.7,
 * 10.9): opaque and tamper-evident, the list's scope and the last id shown in base64url JSON,
 * followed by their HMAC-SHA256 under a key derived from SECRET_KEY. A cursor that is not one
 * of ours, was changed, or belongs to another list (another webhook, filter or organization) is
 * 400 `bad request`. Ids only grow, so a cursor stays valid while new rows arrive.
 */
@Injectable()
export class PageCursors {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    this.key = Buffer.from(hkdfSync('sha256', config.secretKeys.current, Buffer.alloc(0), 'platform-api page cursor', 32));
  }

  encode(scope: string, afterId: number): string {
    const body = Buffer.from(JSON.stringify([scope, afterId])).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The last id a cursor names, when it is one of ours for this list. */
  decode(cursor: string, scope: string): number {
    const [body, mac, extra] = cursor.split('.');
    const given = Buffer.from(mac ?? '', 'base64url');
    const wanted = Buffer.from(this.mac(body ?? ''), 'base64url');
    if (extra !== undefined || given.length !== wanted.length || !timingSafeEqual(given, wanted))
      throw Errors.badRequest(['cursor: not a cursor of this list']);
    const [cursorScope, afterId] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [string, number];
    if (cursorScope !== scope) throw Errors.badRequest(['cursor: belongs to another list or filter']);
    return afterId;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
