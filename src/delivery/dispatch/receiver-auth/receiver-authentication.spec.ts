import { describe, expect, it, vi } from 'vitest';
import { CLIENT } from '../../../../test/support/client-certificates';
import type { OAuth2Settings } from '../../../webhooks/receiver-auth';
import type { OAuthTokens } from './oauth-tokens';
import { ReceiverAuthentication } from './receiver-authentication';

/* docs/api.md 10.16: what an attempt presents to its receiver, OAuth 2.0 and mutual TLS side by side. */

const OAUTH: OAuth2Settings = { type: 'oauth2', tokenUrl: 'https://auth.example.com/token', clientId: 'id', clientSecret: 's3cret' };
const TRACE = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
const signal = new AbortController().signal;

function authenticationWith(tokenFor: OAuthTokens['tokenFor']) {
  const tokens = { tokenFor: vi.fn(tokenFor), refused: vi.fn() };
  return { authentication: new ReceiverAuthentication(tokens as unknown as OAuthTokens), tokens };
}

describe('ReceiverAuthentication', () => {
  it('presents the headers as they are for a webhook without auth', async () => {
    const { authentication } = authenticationWith(vi.fn());
    expect(await authentication.present(3, { 'x-api-key': 'k' }, undefined, TRACE, signal)).toMatchObject({
      ok: true,
      headers: { 'x-api-key': 'k' },
    });
  });

  it("sends an oauth2 webhook's access token as the only authorization, its token request under the attempt's span", async () => {
    const { authentication, tokens } = authenticationWith(async () => ({ ok: true, token: { value: 't1' } }));
    const presented = await authentication.present(3, { Authorization: 'old', a: '1' }, { webhookId: 7, auth: OAUTH }, TRACE, signal);
    expect(presented).toMatchObject({ ok: true, headers: { a: '1', authorization: 'Bearer t1' } });
    expect(tokens.tokenFor).toHaveBeenCalledWith(expect.objectContaining({ organizationId: 3, webhookId: 7 }), OAUTH, signal, TRACE);
  });

  it('drops the token the receiver refused with a 401', async () => {
    const { authentication, tokens } = authenticationWith(async () => ({ ok: true, token: { value: 't1' } }));
    const presented = await authentication.present(3, {}, { webhookId: 7, auth: OAUTH }, TRACE, signal);
    if (presented.ok) presented.refused();
    expect(tokens.refused).toHaveBeenCalledWith(7, expect.any(String), 't1');
  });

  it('answers why a token could not be had, so that nothing is sent', async () => {
    const { authentication } = authenticationWith(async () => ({ ok: false, failure: { reason: 'timeout' } }));
    expect(await authentication.present(3, {}, { webhookId: 7, auth: OAUTH }, TRACE, signal)).toEqual({
      ok: false,
      failure: { reason: 'timeout' },
    });
  });

  it("presents an mtls webhook's certificate under an identity of the webhook and its settings", async () => {
    const { authentication } = authenticationWith(vi.fn());
    const mtls = { type: 'mtls' as const, ...CLIENT };
    const identityOf = async (webhookId: number, auth = mtls) => {
      const presented = await authentication.present(3, {}, { webhookId, auth }, TRACE, signal);
      return presented.ok ? presented.client?.identity : undefined;
    };
    expect(await identityOf(7)).toBe(await identityOf(7));
    expect(await identityOf(8)).not.toBe(await identityOf(7));
    expect(await identityOf(7, { ...mtls, certificate: `${CLIENT.certificate}\n` })).not.toBe(await identityOf(7));
  });
});
