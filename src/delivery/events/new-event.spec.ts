import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../../config/app-config';
import { SecretBox } from '../../crypto/secret-box';
import { newEvent, serializedEvent } from './new-event';

/* An event's data serialized once (issue 40: one JSON.stringify of the data less per event), to exactly the bytes it had before. */

const DATA = { amount: 1e21, note: 'é "quoted" \u2028 \\ \u0000', nested: [{ a: null }, -0, 1.5], constructor: { name: 'x' } };
const secrets = new SecretBox({ secretKeys: { current: randomBytes(32), previous: [] } } as unknown as AppConfig);

describe('serializedEvent and newEvent', () => {
  it('hashes the bytes of JSON.stringify([type, organization, data]), so that keys stored before still match', () => {
    const expected = createHash('sha256')
      .update(JSON.stringify(['user.updated', 7, DATA]))
      .digest('hex');
    expect(serializedEvent('user.updated', 7, DATA).requestHash).toBe(expected);
  });

  it('writes the body JSON.stringify({ type, timestamp, data }) writes', () => {
    const { body, event } = newEvent(secrets, serializedEvent('user.updated', 7, DATA), {
      traceId: 'a'.repeat(32),
      spanId: 'b'.repeat(16),
    });
    const parsed = JSON.parse(body) as { timestamp: string };
    expect(body).toBe(JSON.stringify({ type: 'user.updated', timestamp: parsed.timestamp, data: DATA }));
    expect(event.bodyBytes).toBe(Buffer.byteLength(body));
  });
});
