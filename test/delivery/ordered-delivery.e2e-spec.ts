import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseKind, describeEachDatabase, describeOnMariadb } from '../support/databases';
import { DeliveryHarness, HOOKS, newPath } from '../support/delivery-harness';
import type { TestApp } from '../support/test-app';
import type { WebhookReceiver } from '../support/webhook-receiver';

/*
 * Ordered delivery (docs/api.md 10.18): a webhook with `"ordered": true` gets its deliveries one
 * at a time, in the order their events were accepted, a failing head holding the rest until it
 * ends; on several instances too; its waiting head holds no place another organization needs.
 * The field itself: create, legacy create-or-update, PATCH, reads, audit.
 */

/** The `n` of each request's body, in the order they arrived at `path`. */
const arrivedOrder = (receiver: WebhookReceiver, path: string): number[] =>
  receiver.received
    .filter((request) => request.path === path)
    .map((request) => (JSON.parse(request.body) as { data: { n: number } }).data.n);

describeEachDatabase('ordered delivery', (kind: DatabaseKind) => {
  let h: DeliveryHarness;
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // Retries after 1 s, five times: a head that fails three times still succeeds.
    h = await DeliveryHarness.start(kind, { env: { DELIVERY_RETRY_SCHEDULE: '1,1,1,1,1' } });
    ({ app: t, receiver } = h);
  });
  afterAll(() => h?.close());

  const send = (organization: number, n: number) => h.sendEvent({ type: 'user.updated', organization, data: { n } });

  describe('the field', () => {
    it('is read back when true, kept by a legacy create-or-update that does not give it, cleared by a PATCH of false or null, and audited', async () => {
      const { cookie } = await h.organizationWith({});
      const url = `https://${HOOKS}/ordered`;
      expect((await t.http().post('/api/webhook/in-order').set('Cookie', cookie).send({ url, ordered: true })).body).toMatchObject({
        url,
        ordered: true,
      });
      expect((await t.http().post('/api/webhook').set('Cookie', cookie).send({ name: 'in-order', url })).body).toMatchObject({
        ordered: true,
      });
      const patched = await t.http().patch('/api/webhook/in-order').set('Cookie', cookie).send({ ordered: null });
      expect(patched.body).toEqual({ name: 'in-order', url });
      expect((await t.http().patch('/api/webhook/in-order').set('Cookie', cookie).send({ ordered: false })).body).toEqual({
        name: 'in-order',
        url,
      });
      const audit = (await t.http().get('/api/audit').set('Cookie', cookie)).body.data;
      expect(audit.map((entry: { action: string; fields: string[] }) => [entry.action, entry.fields])).toEqual([
        ['webhook.updated', []],
        ['webhook.updated', ['ordered']],
        ['webhook.updated', []],
        ['webhook.created', ['url', 'ordered']],
      ]);
    });

    it.each([
      ['a string', 'yes'],
      ['a number', 1],
    ])('refuses %s 400 bad request naming ordered', async (_, ordered) => {
      const { cookie } = await h.organizationWith({});
      const res = await t
        .http()
        .post('/api/webhook/in-order')
        .set('Cookie', cookie)
        .send({ url: `https://${HOOKS}/x`, ordered });
      expect(res.body).toEqual({ code: 'bad request', message: ['ordered: must be true or false'] });
    });
  });

  it('holds 20 later events behind a head that fails three times, then sends them all in order', async () => {
    const path = newPath();
    receiver.on(path, { status: 500 });
    const { organizationId } = await h.organizationWith({ ordered: { url: `https://${HOOKS}${path}`, ordered: true } });
    for (let n = 0; n <= 20; n++) expect((await send(organizationId, n)).status).toBe(202);
    await receiver.waitFor(path, 3, 15_000);
    receiver.on(path, { status: 200 });
    await receiver.waitFor(path, 24, 20_000);
    expect(arrivedOrder(receiver, path)).toEqual([0, 0, 0, ...Array.from({ length: 21 }, (_, n) => n)]);
    expect(receiver.peakInFlight(path)).toBe(1);
  });

  /** An ordered webhook `name` whose receiver answers 500, sent `events` events, once its head's first attempt has arrived. */
  const failingHead = async (name: string, events: number) => {
    const path = newPath();
    receiver.on(path, { status: 500 });
    const { organizationId, cookie } = await h.organizationWith({ [name]: { url: `https://${HOOKS}${path}`, ordered: true } });
    for (let n = 0; n < events; n++) await send(organizationId, n);
    await receiver.waitFor(path, 1);
    return { path, cookie };
  };

  it('shows the deliveries behind a failing head with no next attempt, and the head with its retry', async () => {
    const { cookie } = await failingHead('logged', 3);
    const log = async () => (await t.http().get('/api/webhook/logged/deliveries').set('Cookie', cookie)).body.data;
    await expect.poll(async () => (await log()).at(-1).attempts).toBeGreaterThan(0);
    // newest first: the two behind the head, then the head
    expect((await log()).map((d: { state: string; nextAttemptAt: string | null }) => [d.state, d.nextAttemptAt === null])).toEqual([
      ['pending', true],
      ['pending', true],
      ['pending', false],
    ]);
  });

  /** The type and `n` of each request that arrived at `path`, in order. */
  const arrivals = (path: string) =>
    receiver.received
      .filter((request) => request.path === path)
      .map((request) => JSON.parse(request.body) as { type: string; data: { n?: number } });

  it('sends a test ping beside a failing head, and lets the next delivery go once the head has failed for good', async () => {
    const { path, cookie } = await failingHead('held', 2);
    expect((await t.http().post('/api/webhook/held/test').set('Cookie', cookie)).status).toBe(202);
    await expect.poll(() => arrivals(path).some(({ type }) => type === 'webhook.test'), { timeout: 10_000 }).toBe(true);
    const events = () => arrivals(path).filter(({ type }) => type === 'user.updated');
    expect(events().every(({ data }) => data.n === 0)).toBe(true);
    // Six attempts (the first, then the schedule's five retries): the head has failed for good.
    await expect.poll(() => events().filter(({ data }) => data.n === 0).length, { timeout: 20_000 }).toBe(6);
    receiver.on(path, { status: 200 });
    await expect.poll(() => events().some(({ data }) => data.n === 1), { timeout: 10_000 }).toBe(true);
    const log = (await t.http().get('/api/webhook/held/deliveries?type=user.updated').set('Cookie', cookie)).body.data;
    expect(log.at(-1)).toMatchObject({ state: 'failed', attempts: 6 });
  });

  it('changes nothing for a retry of a delivery waiting behind the head: it keeps its place', async () => {
    const { path, cookie } = await failingHead('waiting', 3);
    const log = async () =>
      (await t.http().get('/api/webhook/waiting/deliveries').set('Cookie', cookie)).body.data as {
        id: number;
        nextAttemptAt: string | null;
      }[];
    const [last] = await log();
    const retried = await t.http().post(`/api/webhook/waiting/deliveries/${last.id}/retry`).set('Cookie', cookie);
    expect(retried).toMatchObject({ status: 202, body: { id: last.id, state: 'pending' } });
    expect((await log())[0]).toMatchObject({ id: last.id, nextAttemptAt: null });
    receiver.on(path, { status: 200 });
    await expect.poll(() => new Set(arrivals(path).map(({ data }) => data.n)).size, { timeout: 15_000 }).toBe(3);
    const firstArrivals = [...new Set(arrivals(path).map(({ data }) => data.n))];
    expect(firstArrivals).toEqual([0, 1, 2]);
  });

  it("keeps another organization's deliveries flowing while an ordered head waits", async () => {
    const stuck = newPath();
    const healthy = newPath();
    receiver.on(stuck, 'hang');
    const slow = await h.organizationWith({ stuck: { url: `https://${HOOKS}${stuck}`, ordered: true } });
    const other = await h.organizationWith({ healthy: { url: `https://${HOOKS}${healthy}` } });
    for (let n = 0; n < 5; n++) await send(slow.organizationId, n);
    await receiver.waitFor(stuck, 1);
    const started = Date.now();
    for (let n = 0; n < 10; n++) await send(other.organizationId, n);
    await receiver.waitFor(healthy, 10, 5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(receiver.received.filter((request) => request.path === stuck)).toHaveLength(1);
    receiver.on(stuck, { status: 200 });
  });
});

describeOnMariadb('an ordered webhook delivered by two instances', () => {
  let h: DeliveryHarness;
  let second: TestApp;

  beforeAll(async () => {
    h = await DeliveryHarness.start('mariadb');
    second = await h.another();
  });
  afterAll(async () => {
    await second?.close();
    await h?.close();
  });

  it('never has two attempts in flight, and keeps the order', async () => {
    const path = newPath();
    h.receiver.on(path, { status: 200, delayMs: 30 });
    const { organizationId } = await h.organizationWith({ ordered: { url: `https://${HOOKS}${path}`, ordered: true } });
    // Sent to both instances in turn: each may claim the head.
    for (let n = 0; n < 30; n++) {
      const app = n % 2 === 0 ? h.app : second;
      const res = await app
        .http()
        .post('/api/events')
        .set('Authorization', `Bearer ${h.platformKey}`)
        .send({ type: 'user.updated', organization: organizationId, data: { n } });
      expect(res.status).toBe(202);
    }
    await h.receiver.waitFor(path, 30, 20_000);
    expect(arrivedOrder(h.receiver, path)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    expect(h.receiver.peakInFlight(path)).toBe(1);
  });
});
