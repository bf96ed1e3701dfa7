import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { webhookSignature } from './webhook-signature';

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;
const AT = new Date('2026-11-26T10:00:00.750Z');
const headers = (signature: string, at = AT) => ({
  'webhook-id': 'evt_1',
  'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
  'webhook-signature': signature,
});

describe('webhookSignature', () => {
  it('signs as the standardwebhooks reference library does, byte for byte', () => {
    const key = secret();
    const body = JSON.stringify({ type: 'user.updated', data: { name: 'Zoë ✓' } });
    expect(webhookSignature([key], 'evt_1', AT, Buffer.from(body))).toBe(new Webhook(key).sign('evt_1', AT, body));
  });

  it('is verified by standardwebhooks and svix alike', () => {
    const key = secret();
    const body = '{"type":"card.updated","data":{}}';
    const now = new Date();
    const signature = webhookSignature([key], 'evt_1', now, Buffer.from(body));
    expect(() => new Webhook(key).verify(body, headers(signature, now))).not.toThrow();
    const svixHeaders = { 'svix-id': 'evt_1', 'svix-timestamp': headers(signature, now)['webhook-timestamp'], 'svix-signature': signature };
    expect(() => new SvixWebhook(key).verify(body, svixHeaders)).not.toThrow();
  });

  it('signs with each live secret, the newest first, separated by a space', () => {
    const [newest, previous] = [secret(), secret()];
    const body = Buffer.from('{}');
    expect(webhookSignature([newest, previous], 'evt_1', AT, body)).toBe(
      `${new Webhook(newest).sign('evt_1', AT, '{}')} ${new Webhook(previous).sign('evt_1', AT, '{}')}`,
    );
  });
});
