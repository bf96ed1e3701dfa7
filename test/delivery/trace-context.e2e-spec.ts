import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { DeliveryHarness, HOOKS, newPath } from '../support/delivery-harness';
import type { TestApp } from '../support/test-app';
import type { ReceivedRequest, WebhookReceiver } from '../support/webhook-receiver';

/*
 * Trace context (docs/api.md 10.17): a producer's `traceparent` and `tracestate` reach every
 * attempt (the trace id kept, the attempt's own span as parent; `tracestate` as received), a
 * malformed one starts a new trace, a batch's events share one, the service's own events start
 * their own, and the delivery log shows each delivery's trace id. With an OTLP endpoint set, the
 * spans of the requests, the acceptances and the attempts are exported, none carrying a secret,
 * a token, a body or a URL's path.
 */

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PRODUCER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE}-${PRODUCER_SPAN}-01`;
const ATTEMPT_TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

/** The trace id and the parent span of the traceparent an attempt carried. */
function traceOf(request: ReceivedRequest): { traceId: string; parentId: string } {
  const match = ATTEMPT_TRACEPARENT.exec(request.headers.traceparent ?? '');
  expect(match, `traceparent ${request.headers.traceparent}`).not.toBeNull();
  return { traceId: match![1], parentId: match![2] };
}

describeEachDatabase('trace context', (kind: DatabaseKind) => {
  let h: DeliveryHarness;
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    h = await DeliveryHarness.start(kind);
    ({ app: t, receiver } = h);
  });
  afterAll(() => h?.close());

  /** An organization with one webhook at a path of its own. */
  async function hooked() {
    const path = newPath();
    const org = await h.organizationWith({ traced: { url: `https://${HOOKS}${path}` } });
    return { ...org, path };
  }

  const traceIdInLog = async (cookie: string) =>
    (await t.http().get('/api/webhook/traced/deliveries').set('Cookie', cookie)).body.data.map((d: { traceId: string }) => d.traceId);

  it("carries the producer's trace to the attempt under the attempt's own span, with its tracestate as received, and logs it", async () => {
    const { organizationId, cookie, path } = await hooked();
    const res = await h.sendEvent(
      { type: 'user.updated', organization: organizationId, data: {} },
      { traceparent: TRACEPARENT, tracestate: 'congo=t61rcWkgMzE' },
    );
    expect(res.status).toBe(202);
    const [request] = await receiver.waitFor(path, 1);
    expect(traceOf(request).traceId).toBe(TRACE);
    expect(traceOf(request).parentId).not.toBe(PRODUCER_SPAN);
    expect(request.headers.tracestate).toBe('congo=t61rcWkgMzE');
    expect(await traceIdInLog(cookie)).toEqual([TRACE]);
  });

  it('starts a new trace for a malformed traceparent, passing on no tracestate', async () => {
    const { organizationId, cookie, path } = await hooked();
    await h.sendEvent(
      { type: 'user.updated', organization: organizationId, data: {} },
      { traceparent: `00-${TRACE.toUpperCase()}-${PRODUCER_SPAN}-01`, tracestate: 'congo=1' },
    );
    const [request] = await receiver.waitFor(path, 1);
    const { traceId } = traceOf(request);
    expect(traceId).not.toBe(TRACE);
    expect(request.headers.tracestate).toBeUndefined();
    expect(await traceIdInLog(cookie)).toEqual([traceId]);
  });

  it("gives a batch's events one trace, and a test ping a trace of its own", async () => {
    const { organizationId, cookie, path } = await hooked();
    const events = [0, 1, 2].map((n) => ({ type: 'user.updated', organization: organizationId, data: { n } }));
    const res = await t.http().post('/api/events/batch').set('Authorization', `Bearer ${h.platformKey}`).send({ events });
    expect(res.status).toBe(202);
    const batch = (await receiver.waitFor(path, 3)).map((request) => traceOf(request).traceId);
    expect(new Set(batch).size).toBe(1);
    expect((await t.http().post('/api/webhook/traced/test').set('Cookie', cookie)).status).toBe(202);
    const ping = traceOf((await receiver.waitFor(path, 4))[3]).traceId;
    expect(ping).not.toBe(batch[0]);
  });
});

describe('trace export over OTLP', () => {
  let h: DeliveryHarness;
  let collector: Server;
  const exported: string[] = [];

  beforeAll(async () => {
    collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        exported.push(Buffer.concat(chunks).toString());
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as AddressInfo;
    h = await DeliveryHarness.start('sqlite', { env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` } });
  });
  afterAll(() => new Promise((resolve) => collector?.close(resolve)));

  /** The spans the collector received (OTLP/HTTP JSON: ids in hex). */
  const exportedSpans = () =>
    exported.flatMap((payload) =>
      (
        JSON.parse(payload) as {
          resourceSpans: { scopeSpans: { spans: { name: string; traceId: string; spanId: string; parentSpanId?: string }[] }[] }[];
        }
      ).resourceSpans.flatMap(({ scopeSpans }) => scopeSpans.flatMap(({ spans }) => spans)),
    );

  it("exports the request's, the acceptance's and the attempt's spans as one chain in the producer's trace, with no secret, body or path in them", async () => {
    const path = newPath();
    const { organizationId, secrets } = await h.organizationWith({
      traced: { url: `https://${HOOKS}${path}?key=url-secret`, headers: { 'X-Api-Key': 'header-secret' } },
    });
    const data = { card: 'body-secret' };
    expect((await h.sendEvent({ type: 'user.updated', organization: organizationId, data }, { traceparent: TRACEPARENT })).status).toBe(
      202,
    );
    const [received] = await h.receiver.waitFor(`${path}?key=url-secret`, 1);
    // Closing flushes what the batch processor holds.
    await h.close();
    const spans = exported.join('\n');
    for (const name of ['POST /api/events', 'event accepted', 'webhook attempt']) expect(spans).toContain(name);
    // One chain in the producer's trace: its span, the request's, the acceptance's, the attempt's, the receiver's.
    const named = new Map(exportedSpans().map((span) => [span.name, span]));
    const [request, acceptance, attempt] = ['POST /api/events', 'event accepted', 'webhook attempt'].map((name) => named.get(name)!);
    expect([request, acceptance, attempt].map(({ traceId }) => traceId)).toEqual([TRACE, TRACE, TRACE]);
    expect(request.parentSpanId).toBe(PRODUCER_SPAN);
    expect(acceptance.parentSpanId).toBe(request.spanId);
    expect(attempt.parentSpanId).toBe(acceptance.spanId);
    expect(traceOf(received).parentId).toBe(attempt.spanId);
    for (const secret of ['url-secret', 'header-secret', 'body-secret', h.platformKey, secrets.traced, path])
      expect(spans).not.toContain(secret);
  });
});
