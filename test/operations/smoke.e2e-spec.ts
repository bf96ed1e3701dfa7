import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/databases';
import { TestApp } from '../support/test-app';

describeEachDatabase('smoke', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: { 'hooks.example.com': { A: ['93.184.215.14'] } } });
  });
  afterAll(() => t.close());

  it('creates and lists a webhook', async () => {
    const { cookie } = await t.member('owner');
    const created = await t.http().post('/api/webhook/a').set('Cookie', cookie).send({ url: 'https://hooks.example.com/x' });
    expect(created.status).toBe(201);
    const listed = await t.http().get('/api/webhook').set('Cookie', cookie);
    expect(listed.body).toEqual({ a: { url: 'https://hooks.example.com/x' } });
  });
});
