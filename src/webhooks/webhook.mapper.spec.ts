import { describe, expect, it } from 'vitest';
import {
  columnsOfPatch,
  columnsOfStored,
  draftOf,
  fieldsOfBody,
  headerColumnsOf,
  patchOf,
  storedOf,
  storedOfRow,
  toWebhookBody,
  urlsOf,
  type WebhookColumns,
  webhookListJson,
} from './webhook.mapper';
import { newSigningSecret, StoredWebhook } from './webhook.model';

const U = 'https://hooks.example.com/';

describe('toWebhookBody', () => {
  it('is only the url when no event is set', () => {
    expect(JSON.stringify(toWebhookBody({ url: U, events: {} }))).toBe('{"url":"https://hooks.example.com/"}');
  });

  it('keeps only the events that are set, in each group', () => {
    const body = toWebhookBody({ url: U, events: { 'transaction.updated': `${U}t-u` } });
    expect(body).toEqual({ url: U, transaction: { updated: `${U}t-u` } });
  });

  it('drops a group with no event set', () => {
    const body = toWebhookBody({ url: U, events: { 'user.updated': `${U}u` } });
    expect(Object.keys(body)).toEqual(['url', 'user']);
  });

  it('lists url then the groups in the order transaction, card, user, and members in their order', () => {
    const stored: StoredWebhook = {
      url: U,
      events: {
        'user.updated': `${U}u`,
        'card.updated': `${U}c`,
        'transaction.completed': `${U}t-c`,
        'transaction.created': `${U}t-n`,
        'transaction.updated': `${U}t-u`,
      },
    };
    expect(JSON.stringify(toWebhookBody(stored))).toBe(
      '{"url":"https://hooks.example.com/",' +
        '"transaction":{"created":"https://hooks.example.com/t-n","updated":"https://hooks.example.com/t-u","completed":"https://hooks.example.com/t-c"},' +
        '"card":{"updated":"https://hooks.example.com/c"},' +
        '"user":{"updated":"https://hooks.example.com/u"}}',
    );
  });

  it('carries no field other than url and the groups', () => {
    const stored = { url: U, events: { 'card.updated': `${U}c` }, name: 'x', id: 1, secret: 'whsec_x' } as StoredWebhook;
    expect(toWebhookBody(stored)).toEqual({ url: U, card: { updated: `${U}c` } });
  });
});

describe('webhookListJson', () => {
  const hook = (name: string) => ({ name, url: `${U}${name}`, events: {} });

  it('is {} when there are none', () => {
    expect(webhookListJson([])).toBe('{}');
  });

  it('sorts names bytewise, integer-like names included', () => {
    const json = webhookListJson(['a', '9', 'b-2', '10', 'a-1', '0', 'b'].map(hook));
    expect(json).toBe(
      '{"0":{"url":"https://hooks.example.com/0"},' +
        '"10":{"url":"https://hooks.example.com/10"},' +
        '"9":{"url":"https://hooks.example.com/9"},' +
        '"a":{"url":"https://hooks.example.com/a"},' +
        '"a-1":{"url":"https://hooks.example.com/a-1"},' +
        '"b":{"url":"https://hooks.example.com/b"},' +
        '"b-2":{"url":"https://hooks.example.com/b-2"}}',
    );
  });

  it('puts a hyphen before digits and digits before letters', () => {
    expect(Object.keys(JSON.parse(webhookListJson(['a0', 'aa', 'a-'].map(hook))))).toEqual(['a-', 'a0', 'aa']);
  });

  it('writes each value as the webhook body, groups included', () => {
    const json = webhookListJson([
      { name: 'z', url: U, events: { 'user.updated': `${U}u`, 'transaction.created': `${U}t` } },
      { name: 'a', url: U, events: {} },
    ]);
    expect(json).toBe(
      '{"a":{"url":"https://hooks.example.com/"},' +
        '"z":{"url":"https://hooks.example.com/","transaction":{"created":"https://hooks.example.com/t"},"user":{"updated":"https://hooks.example.com/u"}}}',
    );
  });

  it('is valid JSON whose parse gives the bodies by name', () => {
    const parsed = JSON.parse(webhookListJson(['10', '9'].map(hook)));
    expect(parsed).toEqual({ '9': { url: `${U}9` }, '10': { url: `${U}10` } });
  });

  it('does not reorder its input array', () => {
    const input = ['b', 'a'].map(hook);
    webhookListJson(input);
    expect(input.map((w) => w.name)).toEqual(['b', 'a']);
  });
});

describe('newSigningSecret', () => {
  it('is whsec_ and the base64 of 32 bytes', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64').length).toBe(32);
  });

  it('is different each time', () => {
    expect(new Set(Array.from({ length: 100 }, () => newSigningSecret())).size).toBe(100);
  });
});

const checked = (href: string) => ({ href, hostname: new URL(href).hostname });

describe('fieldsOfBody', () => {
  it('lists url, then each event that is given, by its dotted field', () => {
    expect(fieldsOfBody<string>({ url: U, transaction: { completed: `${U}t-c` }, user: { updated: `${U}u` } })).toEqual([
      ['url', U],
      ['transaction.completed', `${U}t-c`],
      ['user.updated', `${U}u`],
    ]);
  });

  it('turns a null group into a null for each of its events (a patch clearing the group)', () => {
    expect(fieldsOfBody<string | null>({ transaction: null })).toEqual([
      ['transaction.created', null],
      ['transaction.updated', null],
      ['transaction.completed', null],
    ]);
  });

  it('gives nothing for an empty group', () => {
    expect(fieldsOfBody<string>({ url: U, card: {} })).toEqual([['url', U]]);
  });
});

describe('draft and patch to columns', () => {
  it('writes every URL column of a draft, null where no event is set', () => {
    const draft = draftOf([
      ['url', checked(U)],
      ['card.updated', checked(`${U}c`)],
    ]);
    expect(columnsOfStored(storedOf(draft))).toEqual({
      url: U,
      transaction_created_url: null,
      transaction_updated_url: null,
      transaction_completed_url: null,
      card_updated_url: `${U}c`,
      user_updated_url: null,
    });
  });

  it('takes only the columns of the webhooks table a write sets: a misspelt one does not compile', () => {
    // @ts-expect-error: the keys become column names in SQL
    const misspelt: WebhookColumns = { rate_limt: 5 };
    expect(misspelt).toEqual({ rate_limt: 5 });
  });

  it('writes only the columns a patch changes, null for a cleared event', () => {
    const patch = patchOf([
      ['user.updated', null],
      ['transaction.created', checked(`${U}t-n`)],
    ]);
    expect(columnsOfPatch(patch)).toEqual({ user_updated_url: null, transaction_created_url: `${U}t-n` });
  });

  it('resolves only the URLs a patch sets, not the ones it clears', () => {
    const patch = patchOf([
      ['url', checked(U)],
      ['user.updated', null],
    ]);
    expect(urlsOf(patch)).toEqual([['url', checked(U)]]);
  });
});

describe('storedOfRow', () => {
  it('reads the name, url and the event columns that are set, and nothing else', () => {
    const row = { name: 'a', url: U, transaction_created_url: null, card_updated_url: `${U}c`, user_updated_url: null, secret: 'never' };
    expect(storedOfRow(row)).toEqual({ name: 'a', url: U, events: { 'card.updated': `${U}c` } });
  });
});

describe('event types and headers (docs/api.md 10.13, 10.15)', () => {
  it('stores the event types as the JSON array sent, and reads them back in that order', () => {
    const draft = draftOf([['url', checked(U)]], { events: ['user.updated', 'card.*'] });
    const columns = columnsOfStored(storedOf(draft));
    expect(columns.event_types).toBe('["user.updated","card.*"]');
    expect(storedOfRow({ name: 'a', url: U, event_types: columns.event_types }).eventTypes).toEqual(['user.updated', 'card.*']);
  });

  it('writes no event_types column for a draft without them, so that a legacy update keeps them', () => {
    expect(columnsOfStored(storedOf(draftOf([['url', checked(U)]])))).not.toHaveProperty('event_types');
  });

  it('clears the event types with a patch of null', () => {
    expect(columnsOfPatch(patchOf([], { events: null }))).toEqual({ event_types: null });
  });

  it('keeps the header values out of the stored webhook and of every column but the sealed one', () => {
    const draft = draftOf([['url', checked(U)]], { headers: { 'X-Api-Key': 's3cret' } });
    const stored = storedOf(draft);
    expect(stored.headerNames).toEqual(['X-Api-Key']);
    expect(JSON.stringify(stored)).not.toContain('s3cret');
    expect(JSON.stringify(columnsOfStored(stored))).not.toContain('s3cret');
    expect(headerColumnsOf(draft.headers!, { ciphertext: 'sealed', keyId: 'k' })).toEqual({
      header_names: '["X-Api-Key"]',
      headers: 'sealed',
      headers_key_id: 'k',
    });
    expect(headerColumnsOf([], null)).toEqual({ header_names: null, headers: null, headers_key_id: null });
  });

  it('answers events as sent and every header value masked, after the groups', () => {
    const body = toWebhookBody({
      url: U,
      events: { 'card.updated': `${U}c` },
      eventTypes: ['card.*'],
      headerNames: ['X-Api-Key', 'authorization'],
      rateLimit: 5,
    });
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        url: U,
        card: { updated: `${U}c` },
        events: ['card.*'],
        headers: { 'X-Api-Key': '********', authorization: '********' },
        rateLimit: 5,
      }),
    );
  });
});
