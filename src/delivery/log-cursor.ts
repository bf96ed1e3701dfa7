import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Errors } from '../common/domain-error';
import { AppConfig } from '../config/app-config';
import type { DeliveryState } from './delivery.model';

/** Where a page of a delivery log ends: the webhook, the state filter, the last id shown. */
export interface LogPosition {
  readonly webhookId: number;
  readonly state: DeliveryState | null;
  readonly afterId: number;
}

/**
 * The delivery log's `next` cursor (docs/api.md 10.7): opaque and tamper-evident, the position
 * in base64url JSON followed by its HMAC-SHA256 (a key derived from SECRET_KEY). A cursor that
 * is not one of ours, was changed, or belongs to another webhook or filter is 400 `bad request`.
 * Ids only grow, so a cursor is stable while new deliveries arrive.
 */
@Injectable()
export class LogCursors {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    this.key = Buffer.from(hkdfSync('sha256', config.secretKeys.current, Buffer.alloc(0), 'platform-api delivery log cursor', 32));
  }

  encode({ webhookId, state, afterId }: LogPosition): string {
    const body = Buffer.from(JSON.stringify([webhookId, state, afterId])).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The position a cursor names, checked against the request it comes with. */
  decode(cursor: string, expected: Omit<LogPosition, 'afterId'>): number {
    const [body, mac, extra] = cursor.split('.');
    const given = Buffer.from(mac ?? '', 'base64url');
    const wanted = Buffer.from(this.mac(body ?? ''), 'base64url');
    if (extra !== undefined || given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw Errors.badRequest(['cursor: not a cursor of this log']);
    const [webhookId, state, afterId] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [number, DeliveryState | null, number];
    if (webhookId !== expected.webhookId || state !== expected.state) throw Errors.badRequest(['cursor: belongs to another log or filter']);
    return afterId;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
