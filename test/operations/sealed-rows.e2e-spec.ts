import { createCipheriv, randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { keyIdOf, SealedSecret } from '../../src/crypto/secret-box';
import { Migrator } from '../../src/database/migrator';
import { describeEachDatabase } from '../support/databases';
import { TestApp } from '../support/test-app';

/*
 * Sealed secrets are bound to their rows (docs/api.md 3; GCM additional data: table,
 * organization, row). Someone who can write the database but not read the key cannot move a
 * ciphertext into another row and have the service open it for that row's owner: the answer is
 * 500 internal error, the cause is logged, nothing of the secret is revealed. Secrets stored
 * before the binding existed are resealed, bound, by the BindSealedSecrets migration.
 */

const HOST = 'hooks.example.com';
const ZONE = { [HOST]: { A: ['93.184.215.14'] } };
const BIND_MIGRATION = 'BindSealedSecrets1795600000000';

/** A secret as the code before binding sealed it: AES-256-GCM with no additional data. */
function sealUnbound(key: Buffer, plaintext: string): SealedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'), keyId: keyIdOf(key) };
}

describeEachDatabase('sealed secrets bound to their rows', (kind) => {
  const previousKey = randomBytes(32);
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: ZONE, env: { PREVIOUS_SECRET_KEYS: previousKey.toString('base64') } });
  });
  afterAll(() => t?.close());

  const logOf = (res: Response): Record<string, unknown>[] =>
    t.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.requestId === res.headers['x-request-id']);

  function expectInternalErrorLogged(res: Response): void {
    expect({ status: res.status, body: res.body as unknown }).toEqual({ status: 500, body: { code: 'internal error' } });
    expect(logOf(res)).toEqual(expect.arrayContaining([expect.objectContaining({ level: 'error', msg: 'unexpected error' })]));
  }

  async function webhookSecretColumns(organizationId: number, name: string): Promise<{ id: number; secret: string; keyId: string }> {
    const [row]: { id: number; secret: string; keyId: string }[] = await t.dataSource.query(
      `SELECT w.id AS id, w.secret AS secret, w.secret_key_id AS keyId FROM webhook_sources ws JOIN webhooks w ON w.source_id = ws.id
        WHERE ws.organization_id = ? AND w.name = ?`,
      [organizationId, name],
    );
    return row;
  }

  async function createWebhook(cookie: string, name: string): Promise<string> {
    const res = await t
      .http()
      .post(`/api/webhook/${name}`)
      .set('Cookie', cookie)
      .send({ url: `https://${HOST}/${name}` });
    expect(res.status).toBe(201);
    return res.body.secret as string;
  }

  const legacyUpsert = (cookie: string, name: string) =>
    t
      .http()
      .post('/api/webhook')
      .set('Cookie', cookie)
      .send({ name, url: `https://${HOST}/again` });
  const provision = (token: string) => t.http().get('/api/card/provisioning').set('Authorization', `Bearer ${token}`);

  async function copyWebhookSecret(from: { secret: string; keyId: string }, to: { id: number }): Promise<void> {
    await t.dataSource.query('UPDATE webhooks SET secret = ?, secret_key_id = ? WHERE id = ?', [from.secret, from.keyId, to.id]);
  }

  it('refuses to open for a card the provisioning secret copied from another card', async () => {
    const victim = await t.cardHolder({ provisioningId: 'prov-victim', provisioningSecret: 'pss-victim' });
    const thief = await t.cardHolder({ provisioningId: 'prov-thief', provisioningSecret: 'pss-thief' });
    const [stolen]: { secret: string; keyId: string }[] = await t.dataSource.query(
      'SELECT provisioning_secret AS secret, provisioning_secret_key_id AS keyId FROM cards WHERE id = ?',
      [victim.cardId],
    );
    await t.dataSource.query('UPDATE cards SET provisioning_secret = ?, provisioning_secret_key_id = ? WHERE id = ?', [
      stolen.secret,
      stolen.keyId,
      thief.cardId,
    ]);

    const res = await provision(thief.token);
    expectInternalErrorLogged(res);
    expect(res.text).not.toContain('pss-victim');
    expect((await provision(victim.token)).body).toEqual({ id: 'prov-victim', secret: 'pss-victim' });
  });

  it('refuses to open for a webhook the signing secret copied from another webhook of its organization', async () => {
    const { organizationId, cookie } = await t.member('owner');
    const victimSecret = await createWebhook(cookie, 'victim');
    await createWebhook(cookie, 'thief');
    await copyWebhookSecret(await webhookSecretColumns(organizationId, 'victim'), await webhookSecretColumns(organizationId, 'thief'));

    const res = await legacyUpsert(cookie, 'thief');
    expectInternalErrorLogged(res);
    expect(res.text).not.toContain(victimSecret);
    expect((await legacyUpsert(cookie, 'victim')).body.secret).toBe(victimSecret);
  });

  it('refuses to open for a webhook the signing secret copied from the same name in another organization', async () => {
    const victim = await t.member('owner');
    const thief = await t.member('owner');
    const victimSecret = await createWebhook(victim.cookie, 'same-name');
    await createWebhook(thief.cookie, 'same-name');
    await copyWebhookSecret(
      await webhookSecretColumns(victim.organizationId, 'same-name'),
      await webhookSecretColumns(thief.organizationId, 'same-name'),
    );

    const res = await legacyUpsert(thief.cookie, 'same-name');
    expectInternalErrorLogged(res);
    expect(res.text).not.toContain(victimSecret);
  });

  it('reseals secrets stored before binding (under the current or a previous key), which then open for their own rows only', async () => {
    const { organizationId, cookie } = await t.member('owner');
    await createWebhook(cookie, 'older');
    const card = await t.cardHolder({ provisioningId: 'prov-older', provisioningSecret: 'placeholder' });
    const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
    const unboundWebhook = sealUnbound(t.config.secretKeys.current, webhookSecret);
    const unboundCard = sealUnbound(previousKey, 'pss-older');
    const { id: webhookId } = await webhookSecretColumns(organizationId, 'older');
    await t.dataSource.query('UPDATE webhooks SET secret = ?, secret_key_id = ? WHERE id = ?', [
      unboundWebhook.ciphertext,
      unboundWebhook.keyId,
      webhookId,
    ]);
    await t.dataSource.query('UPDATE cards SET provisioning_secret = ?, provisioning_secret_key_id = ? WHERE id = ?', [
      unboundCard.ciphertext,
      unboundCard.keyId,
      card.cardId,
    ]);
    expectInternalErrorLogged(await provision(card.token));

    await t.dataSource.query('DELETE FROM migrations WHERE name = ?', [BIND_MIGRATION]);
    expect(await t.app.get(Migrator).migrate()).toEqual([BIND_MIGRATION]);

    expect((await legacyUpsert(cookie, 'older')).body.secret).toBe(webhookSecret);
    expect((await provision(card.token)).body).toEqual({ id: 'prov-older', secret: 'pss-older' });
    const [resealed]: { keyId: string }[] = await t.dataSource.query('SELECT provisioning_secret_key_id AS keyId FROM cards WHERE id = ?', [
      card.cardId,
    ]);
    expect(resealed.keyId).toBe(keyIdOf(t.config.secretKeys.current));
  });
});
