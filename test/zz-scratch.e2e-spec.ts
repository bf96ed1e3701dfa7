import { it } from 'vitest';
import { startConnectProxy } from './support/connect-proxy';
import { TestApp } from './support/test-app';
import { startWebhookReceiver, TEST_CA_FILE } from './support/webhook-receiver';
import { EventIngest } from '../src/delivery/event-ingest.service';

it('scratch', async () => {
  const receiver = await startWebhookReceiver();
  const proxy = await startConnectProxy({ '1.1.1.10:443': receiver.port });
  const t = await TestApp.start('mariadb', { zone: { 'hooks.example.com': { A: ['1.1.1.10'] } }, env: { DELIVERY_PROXY_URL: proxy.url, DELIVERY_CA_FILE: TEST_CA_FILE, LOG_LEVEL: 'warn' } });
  const { organizationId, cookie } = await t.member('owner');
  await t.http().post('/api/webhook/w').set('Cookie', cookie).send({ url: 'https://hooks.example.com/w' });
  const ingest = t.app.get(EventIngest);
  const t0 = Date.now();
  await Promise.all(Array.from({ length: 500 }, (_, i) => ingest.accept({ type: 'user.updated', organization: organizationId, data: { i } })));
  const t1 = Date.now();
  await receiver.waitFor('/w', 500, 60_000);
  const t2 = Date.now();
  const rows = await t.dataSource.query('SELECT AVG(duration_ms) a, MAX(duration_ms) m FROM delivery_attempts');
  console.log('dns total ms', (globalThis as any).__dns, 'ingest ms', t1 - t0, 'deliver ms', t2 - t1, rows, 'proxy connects', proxy.requested.length);
  await t.close(); await proxy.close(); await receiver.close();
}, 120_000);
