import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { requestWith } from '../../test/support/unit/request-with';
import { describe, expect, it, vi } from 'vitest';
import { rejectionOf } from '../../test/support/unit/domain-errors';
import type { Role } from '../identity/entities/member.entity';
import type { IdentityAccess, SessionGrant } from '../identity/identity-access';
import type { LivePlatformKey } from '../identity/platform-key.model';
import { Authenticator } from './authenticator';
import type { PlatformKeyUses } from './platform-key-uses';

const TOKEN = 'Abcdefghijklmnopqrstuvwxyz0123456789-_ABCDE';
const TOKEN_HASH = createHash('sha256').update(TOKEN).digest('hex');
const SESSION = { cookie: `theme=dark; __Secure-auth.session_token=${TOKEN}` };
const WRITERS: readonly Role[] = ['owner', 'admin'];

function authenticatorWith(grants: SessionGrant[] = [], walletUser?: number, platformKey?: LivePlatformKey) {
  const identities = {
    findSessionGrants: vi.fn(async (_hash: string) => grants),
    findAccessTokenUser: vi.fn(async (_hash: string, _kind: string) => walletUser),
    findLivePlatformKey: vi.fn(async (_hash: string) => platformKey),
  };
  const uses = { note: vi.fn((_id: number, _lastUsedAt: Date | null) => undefined) };
  const authenticator = new Authenticator(identities as unknown as IdentityAccess, uses as unknown as PlatformKeyUses);
  return { identities, uses, authenticator };
}

const UNAUTHORIZED = { status: 401, body: { code: 'unauthorized' } };
const NO_ORGANIZATION = { status: 403, body: { code: 'no organization' } };
const NO_PERMISSION = { status: 403, body: { code: 'no permission' } };

describe('Authenticator.session (docs/api.md 4, webhook operations)', () => {
  it.each<[string, IncomingHttpHeaders]>([
    ['no headers', {}],
    ['no session cookie', { cookie: 'theme=dark' }],
    ['a malformed session token', { cookie: `__Secure-auth.session_token=${TOKEN.slice(1)}` }],
    ['a similarly named cookie', { cookie: `__Secure-auth.session_token2=${TOKEN}` }],
    ['only a bearer token', { authorization: `Bearer ${TOKEN}` }],
  ])('answers 401 unauthorized without looking anything up for %s', async (_, headers) => {
    const { authenticator, identities } = authenticatorWith([{ userId: 5, organizationId: 1, role: 'owner' }]);
    expect(await rejectionOf(authenticator.session(headers, WRITERS))).toEqual(UNAUTHORIZED);
    expect(identities.findSessionGrants).not.toHaveBeenCalled();
    expect(identities.findAccessTokenUser).not.toHaveBeenCalled();
  });

  it('answers 401 unauthorized when no live session has the token (no grant rows)', async () => {
    const { authenticator } = authenticatorWith([]);
    expect(await rejectionOf(authenticator.session(SESSION, WRITERS))).toEqual(UNAUTHORIZED);
  });

  it('answers 403 no organization for one grant without an organization', async () => {
    const { authenticator } = authenticatorWith([{ userId: 5, organizationId: null, role: null }]);
    expect(await rejectionOf(authenticator.session(SESSION, WRITERS))).toEqual(NO_ORGANIZATION);
  });

  it('answers 403 no organization for two grants (ambiguous membership)', async () => {
    const { authenticator } = authenticatorWith([
      { userId: 5, organizationId: 1, role: 'owner' },
      { userId: 5, organizationId: 2, role: 'owner' },
    ]);
    expect(await rejectionOf(authenticator.session(SESSION, WRITERS))).toEqual(NO_ORGANIZATION);
  });

  it('answers 403 no organization before judging the role', async () => {
    const { authenticator } = authenticatorWith([
      { userId: 5, organizationId: 1, role: 'member' },
      { userId: 5, organizationId: 2, role: 'member' },
    ]);
    expect(await rejectionOf(authenticator.session(SESSION, WRITERS))).toEqual(NO_ORGANIZATION);
  });

  it('answers 403 no permission for a role that is not allowed', async () => {
    const { authenticator } = authenticatorWith([{ userId: 5, organizationId: 7, role: 'member' }]);
    expect(await rejectionOf(authenticator.session(SESSION, WRITERS))).toEqual(NO_PERMISSION);
  });

  it('answers 403 no permission when the route allows only another role', async () => {
    const { authenticator } = authenticatorWith([{ userId: 5, organizationId: 7, role: 'admin' }]);
    expect(await rejectionOf(authenticator.session(SESSION, ['owner']))).toEqual(NO_PERMISSION);
  });

  it.each<Role>(['owner', 'admin'])('returns the session caller for an allowed role (%s)', async (role) => {
    const { authenticator } = authenticatorWith([{ userId: 5, organizationId: 7, role }]);
    expect(await authenticator.session(SESSION, WRITERS)).toEqual({
      kind: 'session',
      sessionKey: TOKEN_HASH,
      userId: 5,
      organizationId: 7,
      role,
    });
  });

  it('returns the caller when a bearer header is also present (it is ignored)', async () => {
    const { authenticator } = authenticatorWith([{ userId: 5, organizationId: 7, role: 'owner' }]);
    expect(await authenticator.session({ ...SESSION, authorization: 'Bearer whatever' }, WRITERS)).toEqual({
      kind: 'session',
      sessionKey: TOKEN_HASH,
      userId: 5,
      organizationId: 7,
      role: 'owner',
    });
  });

  it('looks up the SHA-256 hash of the token, never the token', async () => {
    const { authenticator, identities } = authenticatorWith([{ userId: 5, organizationId: 7, role: 'owner' }]);
    await authenticator.session(SESSION, WRITERS);
    expect(identities.findSessionGrants.mock.calls).toEqual([[TOKEN_HASH]]);
  });

  it('looks up the hash of an unquoted token when the cookie value is quoted', async () => {
    const { authenticator, identities } = authenticatorWith([{ userId: 5, organizationId: 7, role: 'owner' }]);
    await authenticator.session({ cookie: `__Secure-auth.session_token="${TOKEN}"` }, WRITERS);
    expect(identities.findSessionGrants.mock.calls).toEqual([[TOKEN_HASH]]);
  });
});

describe('Authenticator.walletExtension (docs/api.md 4, card provisioning)', () => {
  it('returns the wallet caller for a valid bearer token', async () => {
    const { authenticator } = authenticatorWith([], 42);
    expect(await authenticator.walletExtension(requestWith({ authorization: `Bearer ${TOKEN}` }))).toEqual({
      kind: 'wallet-extension',
      tokenKey: TOKEN_HASH,
      userId: 42,
    });
  });

  it('looks up a wallet_extension token by its hash, never the token', async () => {
    const { authenticator, identities } = authenticatorWith([], 42);
    await authenticator.walletExtension(requestWith({ authorization: `bearer ${TOKEN}` }));
    expect(identities.findAccessTokenUser.mock.calls).toEqual([[TOKEN_HASH, 'wallet_extension']]);
    expect(identities.findSessionGrants).not.toHaveBeenCalled();
  });

  it('answers 401 unauthorized for an unknown token', async () => {
    const { authenticator } = authenticatorWith([], undefined);
    expect(await rejectionOf(authenticator.walletExtension(requestWith({ authorization: `Bearer ${TOKEN}` })))).toEqual(UNAUTHORIZED);
  });

  it.each<[string, IncomingHttpHeaders]>([
    ['a cookie beside the bearer', { authorization: `Bearer ${TOKEN}`, cookie: 'theme=dark' }],
    ['the session cookie beside the bearer', { authorization: `Bearer ${TOKEN}`, cookie: `__Secure-auth.session_token=${TOKEN}` }],
    ['a sessionid header beside the bearer', { authorization: `Bearer ${TOKEN}`, sessionid: 'abc' }],
    ['only the session cookie', { cookie: `__Secure-auth.session_token=${TOKEN}` }],
    ['no headers', {}],
    ['another scheme', { authorization: `Basic ${TOKEN}` }],
    ['an extra segment', { authorization: `Bearer ${TOKEN} x` }],
  ])('answers 401 unauthorized without looking anything up for %s', async (_, headers) => {
    const { authenticator, identities } = authenticatorWith([{ userId: 5, organizationId: 1, role: 'owner' }], 42);
    expect(await rejectionOf(authenticator.walletExtension(requestWith(headers)))).toEqual(UNAUTHORIZED);
    expect(identities.findAccessTokenUser).not.toHaveBeenCalled();
    expect(identities.findSessionGrants).not.toHaveBeenCalled();
  });
});

describe('Authenticator.platform (docs/api.md 10.1)', () => {
  const LAST_USED = new Date('2026-01-02T03:04:05.000Z');

  it('returns the platform caller with the organizations of the key', async () => {
    const { authenticator } = authenticatorWith([], undefined, { id: 3, organizations: [4, 9], lastUsedAt: null });
    expect(await authenticator.platform(requestWith({ authorization: `Bearer ${TOKEN}` }))).toEqual({
      kind: 'platform',
      tokenKey: TOKEN_HASH,
      keyId: 3,
      organizations: [4, 9],
    });
  });

  it('returns organizations null for a key of every organization', async () => {
    const { authenticator } = authenticatorWith([], undefined, { id: 3, organizations: null, lastUsedAt: null });
    expect((await authenticator.platform(requestWith({ authorization: `Bearer ${TOKEN}` }))).organizations).toBeNull();
  });

  it('asks for a live key by the hash of the token, and notes its use with the stored last use', async () => {
    const { authenticator, identities, uses } = authenticatorWith([], undefined, { id: 3, organizations: null, lastUsedAt: LAST_USED });
    await authenticator.platform(requestWith({ authorization: `Bearer ${TOKEN}` }));
    expect(identities.findLivePlatformKey.mock.calls).toEqual([[TOKEN_HASH]]);
    expect(uses.note.mock.calls).toEqual([[3, LAST_USED]]);
  });

  it('answers 401 unauthorized for a token that is no live key (unknown, revoked or expired), noting no use', async () => {
    const { authenticator, uses } = authenticatorWith([], undefined, undefined);
    expect(await rejectionOf(authenticator.platform(requestWith({ authorization: `Bearer ${TOKEN}` })))).toEqual(UNAUTHORIZED);
    expect(uses.note).not.toHaveBeenCalled();
  });

  it('answers 401 unauthorized without a lookup for a cookie beside the bearer', async () => {
    const { authenticator, identities } = authenticatorWith([], undefined, { id: 3, organizations: null, lastUsedAt: null });
    expect(await rejectionOf(authenticator.platform(requestWith({ authorization: `Bearer ${TOKEN}`, cookie: 'a=b' })))).toEqual(
      UNAUTHORIZED,
    );
    expect(identities.findLivePlatformKey).not.toHaveBeenCalled();
  });
});
