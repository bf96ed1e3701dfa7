import { afterAll, beforeAll, expect, it } from 'vitest';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { DeliveryHarness, HOOKS, newPath } from '../support/delivery-harness';
import { TestApp } from '../support/test-app';
import type { WebhookReceiver } from '../support/webhook-receiver';

/*
 * Recovery (docs/api.md 10.14): every failed delivery of a webhook created in [since, until) is
 * pending again and sent at once, its schedule starting over; succeeded, cancelled and pending
 * ones are untouched. Answered at once with the count, worked in batches; an Idempotency-Key
 * answers as the first call and recovers nothing more; a disabled webhook is 409; the window's
 * bounds, the callers and the replay limit as SPEC says; audited as delivery.recovered.
 */

const HOUR = 3600_000;
const ACTIONS = 6;
/** DELIVERY_PENDING_PER_ORG_MAX: above the largest recovery the other cases make (601). */
const PENDING_MAX = 700;

/** A datetime column's text for `at`. */
const column = (at: Date) => at.toISOString().replace('T', ' ').replace('Z', '');

describeEachDatabase('recovery', (kind: DatabaseKind) => {
  let h: DeliveryHarness;
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    h = await DeliveryHarness.start(kind, {
      env: {
        DELIVERY_RETRY_SCHEDULE: '1',
        RATE_LIMIT_ACTIONS_PER_WEBHOOK: String(ACTIONS),
        DELIVERY_PENDING_PER_ORG_MAX: String(PENDING_MAX),
      },
    });
    ({ app: t, receiver } = h);
  });
  afterAll(() => h?.close());

  const recover = (cookie: string, body: unknown, key?: string) => {
    const req = t.http().post('/api/webhook/lost/recover').set('Cookie', cookie);
    return (key === undefined ? req : req.set('Idempotency-Key', key)).send(body as object);
  };
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

  interface Row {
    id: number;
    state: string;
    attempts: number;
    nextAttemptAt: unknown;
  }
  const rowsOf = async (organizationId: number): Promise<Row[]> =>
    (
      await t.dataSource.query(
        'SELECT id, state, attempts, next_attempt_at AS nextAttemptAt FROM deliveries WHERE organization_id = ? ORDER BY id',
        [organizationId],
      )
    ).map((row: Row) => ({ ...row, id: Number(row.id), attempts: Number(row.attempts) }));

  /** A webhook `lost` whose receiver fails, with `count` failed deliveries created an hour ago. */
  async function failedWebhook(count: number) {
    const path = newPath();
    receiver.on(path, { status: 500 });
    const org = await h.organizationWith({ lost: { url: `https://${HOOKS}${path}` } });
    const sent = [];
    for (let i = 0; i < count; i++)
      sent.push((await h.sendEvent({ type: 'user.updated', organization: org.organizationId, data: { i } })).body.id);
    await Promise.all(sent.map((id) => h.settled(id)));
    await t.dataSource.query('UPDATE deliveries SET created_at = ? WHERE organization_id = ?', [
      column(new Date(Date.now() - HOUR)),
      org.organizationId,
    ]);
    return { ...org, path };
  }

  it('sends every failed delivery of the window again at once, starting its schedule over, and leaves the others as they were', async () => {
    const { organizationId, cookie, path } = await failedWebhook(6);
    const [inWindow, alsoInWindow, before, succeeded, cancelled, pending] = await rowsOf(organizationId);
    await t.dataSource.query('UPDATE deliveries SET created_at = ? WHERE id = ?', [column(new Date(Date.now() - 3 * HOUR)), before.id]);
    await t.dataSource.query("UPDATE deliveries SET state = 'succeeded' WHERE id = ?", [succeeded.id]);
    await t.dataSource.query("UPDATE deliveries SET state = 'cancelled', next_attempt_at = NULL WHERE id = ?", [cancelled.id]);
    const later = column(new Date(Date.now() + HOUR));
    await t.dataSource.query("UPDATE deliveries SET state = 'pending', next_attempt_at = ? WHERE id = ?", [later, pending.id]);
    const untouched = (await rowsOf(organizationId)).filter((row) => [before.id, succeeded.id, cancelled.id, pending.id].includes(row.id));
    const sentBefore = receiver.received.filter((r) => r.path === path).length;
    receiver.on(path, { status: 200 });

    const res = await recover(cookie, { since: ago(2 * HOUR) });
    expect({ status: res.status, body: res.body }).toEqual({ status: 202, body: { deliveries: 2 } });
    // a recovery of up to a batch is done when answered: nothing of it is failed any more
    const answered = (await rowsOf(organizationId)).filter((row) => [inWindow.id, alsoInWindow.id].includes(row.id));
    expect(answered.map((row) => row.state)).not.toContain('failed');
    await receiver.waitFor(path, sentBefore + 2);
    await expect
      .poll(async () => (await rowsOf(organizationId)).filter((row) => [inWindow.id, alsoInWindow.id].includes(row.id)), {
        timeout: 10_000,
      })
      .toEqual([
        { ...inWindow, state: 'succeeded', attempts: 3, nextAttemptAt: null },
        { ...alsoInWindow, state: 'succeeded', attempts: 3, nextAttemptAt: null },
      ]);
    expect((await rowsOf(organizationId)).filter((row) => untouched.some((u) => u.id === row.id))).toEqual(untouched);
    const [entry] = (await t.http().get('/api/audit').set('Cookie', cookie)).body.data;
    expect(entry).toMatchObject({
      action: 'delivery.recovered',
      webhook: 'lost',
      fields: ['since', 'until'],
      actor: { user: expect.any(Number) },
    });
  });

  it('follows the schedule from its start again after a recovered delivery fails once more', async () => {
    const { organizationId, cookie, path } = await failedWebhook(1);
    const sentBefore = receiver.received.filter((r) => r.path === path).length;
    expect((await recover(cookie, { since: ago(2 * HOUR), until: ago(HOUR / 2) })).body).toEqual({ deliveries: 1 });
    await receiver.waitFor(path, sentBefore + 2);
    await expect.poll(async () => (await rowsOf(organizationId))[0], { timeout: 10_000 }).toMatchObject({ state: 'failed', attempts: 4 });
  });

  it('sends again a failed delivery it counted whose last attempt a delivering instance stamped with a clock ahead of the asking one', async () => {
    const { organizationId, cookie, path } = await failedWebhook(1);
    await t.dataSource.query('UPDATE deliveries SET last_attempt_at = ? WHERE organization_id = ?', [
      column(new Date(Date.now() + HOUR)),
      organizationId,
    ]);
    receiver.on(path, { status: 200 });
    expect((await recover(cookie, { since: ago(2 * HOUR) })).body).toEqual({ deliveries: 1 });
    await expect.poll(async () => (await rowsOf(organizationId))[0].state, { timeout: 10_000 }).toBe('succeeded');
  });

  /** `count` more failed deliveries of the failed webhook's one event, written directly, created an hour ago; its id. */
  async function moreFailed(organizationId: number, count: number): Promise<number> {
    const [{ eventId, webhookId }] = await t.dataSource.query(
      'SELECT event_id AS eventId, webhook_id AS webhookId FROM deliveries WHERE organization_id = ?',
      [organizationId],
    );
    const at = column(new Date(Date.now() - HOUR));
    const rows = Array.from({ length: count }, () => [eventId, organizationId, 'user.updated', webhookId, 'failed', 2, at]);
    await t.dataSource.query(
      `INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, created_at) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      rows.flat(),
    );
    return Number(webhookId);
  }

  it('answers at once and works a recovery larger than a batch to its end', async () => {
    const { organizationId, cookie, path } = await failedWebhook(1);
    const webhookId = await moreFailed(organizationId, 600);
    receiver.on(path, { status: 200 });
    const started = Date.now();
    const res = await recover(cookie, { since: ago(2 * HOUR) });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(res.body).toEqual({ deliveries: 601 });
    await expect
      .poll(async () => (await rowsOf(organizationId)).filter((row) => row.state === 'failed').length, { timeout: 20_000 })
      .toBe(0);
    const [recovery] = await t.dataSource.query('SELECT done_at AS doneAt, deliveries FROM delivery_recoveries WHERE webhook_id = ?', [
      webhookId,
    ]);
    await expect
      .poll(
        async () =>
          (await t.dataSource.query('SELECT done_at AS doneAt FROM delivery_recoveries WHERE webhook_id = ?', [webhookId]))[0].doneAt,
      )
      .not.toBeNull();
    expect(Number(recovery.deliveries)).toBe(601);
  });

  it('goes on from where a recovery stopped once the claim of an instance that died has run out, none recovered twice', async () => {
    const { organizationId, path } = await failedWebhook(3);
    const [first, second, third] = await rowsOf(organizationId);
    const [{ webhookId }] = await t.dataSource.query('SELECT webhook_id AS webhookId FROM deliveries WHERE id = ?', [first.id]);
    const [{ createdAt }] = await t.dataSource.query('SELECT created_at AS createdAt FROM deliveries WHERE id = ?', [first.id]);
    // the first was recovered (and is pending again) before the instance died; its lease ended a second ago
    await t.dataSource.query("UPDATE deliveries SET state = 'pending', next_attempt_at = ? WHERE id = ?", [
      column(new Date(Date.now() + HOUR)),
      first.id,
    ]);
    await t.dataSource.query(
      `INSERT INTO delivery_recoveries (webhook_id, request_hash, since, until, requested_at, deliveries, after_created_at, after_id, claim_token, claimed_until)
       VALUES (?, 'h', ?, ?, ?, 3, ?, ?, 'dead', ?)`,
      [
        webhookId,
        column(new Date(Date.now() - 2 * HOUR)),
        column(new Date()),
        column(new Date()),
        typeof createdAt === 'string' ? createdAt : column(createdAt),
        first.id,
        column(new Date(Date.now() - 1000)),
      ],
    );
    receiver.on(path, { status: 200 });
    const sentBefore = receiver.received.filter((r) => r.path === path).length;
    await receiver.waitFor(path, sentBefore + 2);
    await expect
      .poll(async () => (await rowsOf(organizationId)).map((row) => [row.id, row.state, row.attempts]), { timeout: 10_000 })
      .toEqual([
        [first.id, 'pending', 2],
        [second.id, 'succeeded', 3],
        [third.id, 'succeeded', 3],
      ]);
  });

  it('answers a second recovery with the same Idempotency-Key as the first, recovering nothing more, also when they race', async () => {
    const { organizationId, cookie } = await failedWebhook(2);
    const body = { since: ago(2 * HOUR) };
    const answers = await Promise.all([
      recover(cookie, body, 'outage-1'),
      recover(cookie, body, 'outage-1'),
      recover(cookie, body, 'outage-1'),
    ]);
    expect(answers.map((res) => ({ status: res.status, body: res.body }))).toEqual(Array(3).fill({ status: 202, body: { deliveries: 2 } }));
    const [webhook] = await t.dataSource.query('SELECT DISTINCT webhook_id AS id FROM deliveries WHERE organization_id = ?', [
      organizationId,
    ]);
    const recoveries = () => t.dataSource.query('SELECT COUNT(*) AS n FROM delivery_recoveries WHERE webhook_id = ?', [webhook.id]);
    expect(Number((await recoveries())[0].n)).toBe(1);
    await expect
      .poll(async () => (await rowsOf(organizationId)).every((row) => row.state === 'failed' && row.attempts === 4), { timeout: 10_000 })
      .toBe(true);

    expect((await recover(cookie, body, 'outage-1')).body).toEqual({ deliveries: 2 });
    const conflict = await recover(cookie, { since: ago(3 * HOUR) }, 'outage-1');
    expect({ status: conflict.status, body: conflict.body }).toEqual({ status: 409, body: { code: 'idempotency conflict' } });
    expect(Number((await recoveries())[0].n)).toBe(1);
    const audit = (await t.http().get('/api/audit').set('Cookie', cookie)).body.data;
    expect(audit.filter((entry: { action: string }) => entry.action === 'delivery.recovered')).toHaveLength(1);
  });

  it("answers 429 queue full with Retry-After when the deliveries it would make pending pass the organization's limit, recovering and recording nothing", async () => {
    const { organizationId, cookie } = await failedWebhook(1);
    const webhookId = await moreFailed(organizationId, PENDING_MAX);
    const res = await recover(cookie, { since: ago(2 * HOUR) });
    expect({ status: res.status, body: res.body, retryAfter: res.headers['retry-after'] }).toEqual({
      status: 429,
      body: { code: 'queue full' },
      retryAfter: expect.stringMatching(/^\d+$/),
    });
    const [{ failed }] = await t.dataSource.query(
      "SELECT COUNT(*) AS failed FROM deliveries WHERE organization_id = ? AND state = 'failed'",
      [organizationId],
    );
    expect(Number(failed)).toBe(PENDING_MAX + 1);
    expect(await t.dataSource.query('SELECT id FROM delivery_recoveries WHERE webhook_id = ?', [webhookId])).toEqual([]);
    const audit = (await t.http().get('/api/audit').set('Cookie', cookie)).body.data;
    expect(audit.map((entry: { action: string }) => entry.action)).not.toContain('delivery.recovered');
  });

  it('answers 409 disabled for a disabled webhook, recovering and recording nothing', async () => {
    const { organizationId, cookie } = await failedWebhook(1);
    await t.dataSource.query(
      'UPDATE webhooks SET disabled_at = ? WHERE source_id = (SELECT id FROM webhook_sources WHERE organization_id = ?)',
      [column(new Date()), organizationId],
    );
    const res = await recover(cookie, { since: ago(2 * HOUR) });
    expect({ status: res.status, body: res.body }).toEqual({ status: 409, body: { code: 'disabled' } });
    expect((await rowsOf(organizationId)).map((row) => row.state)).toEqual(['failed']);
    const audit = (await t.http().get('/api/audit').set('Cookie', cookie)).body.data;
    expect(audit.map((entry: { action: string }) => entry.action)).not.toContain('delivery.recovered');
  });

  it.each([
    ['no since', {}, 'since: is required'],
    ['a since older than DELIVERY_RETENTION_DAYS', { since: ago(31 * 24 * HOUR) }, 'since: must be within the last 30 days'],
    ['an until in the future', { since: ago(HOUR), until: new Date(Date.now() + HOUR).toISOString() }, 'until: must not be in the future'],
    ['a since after until', { since: ago(HOUR), until: ago(2 * HOUR) }, 'since: must be before until'],
    ['a since in the future', { since: new Date(Date.now() + HOUR).toISOString() }, 'since: must be before now'],
    ['a local time', { since: '2026-01-15T09:30:00' }, 'since: must be an ISO 8601 date and time'],
    ['an unknown member', { since: ago(HOUR), state: 'failed' }, 'state: unknown member'],
  ])('answers %s 400 bad request, recording nothing', async (_, body, message) => {
    const { organizationId, cookie } = await failedWebhook(0);
    const res = await recover(cookie, body);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: { code: 'bad request', message: [expect.stringContaining(message)] },
    });
    expect(
      await t.dataSource.query('SELECT id FROM audit_entries WHERE organization_id = ? AND action = ?', [
        organizationId,
        'delivery.recovered',
      ]),
    ).toEqual([]);
  });

  it('answers an Idempotency-Key that is not 1-255 visible ASCII characters 400, an unknown webhook 404, a member 403', async () => {
    const { organizationId, cookie } = await failedWebhook(0);
    expect((await recover(cookie, { since: ago(HOUR) }, 'with space')).body).toMatchObject({ code: 'bad request' });
    const unknown = await t
      .http()
      .post('/api/webhook/missing/recover')
      .set('Cookie', cookie)
      .send({ since: ago(HOUR) });
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 404, body: { code: 'not found' } });
    const member = await t.member('member', organizationId);
    expect((await recover(member.cookie, { since: ago(HOUR) })).status).toBe(403);
    expect(
      (
        await t
          .http()
          .post('/api/webhook/lost/recover')
          .send({ since: ago(HOUR) })
      ).status,
    ).toBe(401);
  });

  it("counts against the webhook's replay limit: past it 429 with Retry-After, recording nothing", async () => {
    const { cookie } = await failedWebhook(0);
    const statuses: number[] = [];
    for (let i = 0; i < ACTIONS - 1; i++) statuses.push((await recover(cookie, { since: ago(HOUR) })).status);
    statuses.push((await t.http().post('/api/webhook/lost/deliveries/1/retry').set('Cookie', cookie)).status);
    const refused = await recover(cookie, { since: ago(HOUR) });
    expect([...statuses, refused.status]).toEqual([...Array(ACTIONS - 1).fill(202), 404, 429]);
    expect(refused.body).toEqual({ code: 'rate limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});
