import { expect } from 'vitest';
import type { Zone } from './dns-server';
import type { TestApp } from './test-app';

/** Public names for webhook URLs, as the test DNS server answers them. */
export const PUBLIC_ZONE: Zone = {
  'hooks.example.com': { A: ['93.184.215.14'] },
  'events.example.com': { AAAA: ['2606:2800:21f:cb07:6820:80da:af6b:1c44'] },
  'other.example.com': { A: ['93.184.215.34'], AAAA: ['2606:2800:21f:cb07:6820:80da:af6b:1c45'] },
};
export const HOOK = 'https://hooks.example.com/';
export const EVENTS = 'https://events.example.com/';
export const OTHER = 'https://other.example.com/';

/** docs/api.md 5: `whsec_` and the base64 of 32 bytes. */
export const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
export const NAME_RULE = 'name: must match ^[a-z0-9-]{1,64}$';

export type Member = Awaited<ReturnType<TestApp['member']>>;

/** The webhook operations of one app as HTTP calls, and the database checks around them. */
export function webhookClient(app: () => TestApp) {
  const http = () => app().http();
  const count = async (sql: string, params: unknown[]): Promise<number> => {
    const [row] = (await app().dataSource.query(sql, params)) as { n: unknown }[];
    return Number(row.n);
  };
  const sourceRows = (m: Member) => count('SELECT COUNT(*) AS n FROM webhook_sources WHERE organization_id = ?', [m.organizationId]);
  const webhookRows = (m: Member) =>
    count(`SELECT COUNT(*) AS n FROM webhooks w JOIN webhook_sources ws ON ws.id = w.source_id WHERE ws.organization_id = ?`, [
      m.organizationId,
    ]);
  return {
    create: (m: Member, name: string, body: unknown) =>
      http()
        .post(`/api/webhook/${name}`)
        .set('Cookie', m.cookie)
        .send(body as object),
    list: (m: Member) => http().get('/api/webhook').set('Cookie', m.cookie),
    read: (m: Member, name: string) => http().get(`/api/webhook/${name}`).set('Cookie', m.cookie),
    patch: (m: Member, name: string, body: unknown, type = 'application/json') =>
      http().patch(`/api/webhook/${name}`).set('Cookie', m.cookie).set('Content-Type', type).send(JSON.stringify(body)),
    remove: (m: Member, name: string) => http().delete(`/api/webhook/${name}`).set('Cookie', m.cookie),
    /** Legacy create-or-update: `POST /api/webhook`. */
    upsert: (m: Member, body: unknown) =>
      http()
        .post('/api/webhook')
        .set('Cookie', m.cookie)
        .send(body as object),
    /** Legacy delete: `DELETE /api/webhook` with the name in the body. */
    removeByBody: (m: Member, body: unknown) =>
      http()
        .delete('/api/webhook')
        .set('Cookie', m.cookie)
        .send(body as object),
    sourceRows,
    /** docs/api.md 5: the organization has a source row iff it has at least one webhook. */
    expectSourceInvariant: async (m: Member) => {
      const webhooks = await webhookRows(m);
      expect(await sourceRows(m)).toBe(webhooks > 0 ? 1 : 0);
    },
    storedColumn: async (m: Member, name: string, column: 'url' | 'secret'): Promise<string> => {
      const [row] = (await app().dataSource.query(
        `SELECT w.${column} AS value FROM webhooks w JOIN webhook_sources ws ON ws.id = w.source_id
          WHERE ws.organization_id = ? AND w.name = ?`,
        [m.organizationId, name],
      )) as { value: string }[];
      return row.value;
    },
  };
}
