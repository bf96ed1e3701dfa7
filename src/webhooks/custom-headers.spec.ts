import { describe, expect, it } from 'vitest';
import { headerLimitProblems, headerListOf, headerProblems, maskedHeaders, mergeHeaders, sendableHeaders } from './custom-headers';

const VALUE_RULE = 'value must be 1 to 1024 visible ASCII characters or spaces, with no space first or last';
const create = (headers: unknown) => headerProblems(headers, { nullable: false });
const patch = (headers: unknown) => headerProblems(headers, { nullable: true });

describe('headerProblems (docs/api.md 10.15)', () => {
  it('takes HTTP tokens with visible ASCII values, spaces inside', () => {
    expect(create({ 'X-Api-Key': 'k3y', Authorization: 'Bearer abc', "a!#$%&'*+-.^_`|~9": '~!' })).toEqual([]);
  });

  it('takes 20 headers and 8192 characters of values together, exactly', () => {
    const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x-h${i}`, 'v']));
    expect(create(twenty)).toEqual([]);
    const full = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`x-h${i}`, 'v'.repeat(1024)]));
    expect(create(full)).toEqual([]);
  });

  it.each([
    'host',
    'content-length',
    'content-type',
    'transfer-encoding',
    'connection',
    'keep-alive',
    'te',
    'trailer',
    'upgrade',
    'expect',
    'user-agent',
    'cookie',
    'forwarded',
    'x-real-ip',
    'x-http-method-override',
    'x-method-override',
    'x-http-method',
    'X-Original-URL',
    'x-rewrite-url',
    'traceparent',
    'tracestate',
    'baggage',
    'x-forwarded-for',
    'x-forwarded-host',
    'x-forwarded-anything',
    'proxy-authorization',
    'proxy-anything',
    'webhook-id',
    'webhook-signature',
    'webhook-custom',
  ])('refuses the name %s, in any case', (name) => {
    for (const given of [name, name.toUpperCase(), name[0].toUpperCase() + name.slice(1)]) {
      expect(create({ [given]: 'v' })).toEqual([`${given}: not allowed (the service or the connection sets it)`]);
    }
  });

  it('takes names that only begin like a refused one', () => {
    expect(create({ hosts: 'v', proxy: 'v', webhooks: 'v', 'x-webhook-id': 'v', tea: 'v', 'x-forwarded': 'v', cookies: 'v' })).toEqual([]);
  });

  it("takes authorization (a receiver's API key or token) when no oauth2 auth is set", () => {
    expect(create({ Authorization: 'Bearer k' })).toEqual([]);
  });

  it('refuses two names that differ only in case', () => {
    expect(create({ 'X-Key': 'a', 'x-key': 'b' })).toEqual(['x-key: given twice (names are compared case-insensitively)']);
  });

  it.each([
    ['an empty name', ''],
    ['a space', 'x key'],
    ['a colon', 'x:key'],
    ['a non-ASCII letter', 'clé'],
    ['65 characters', 'x'.repeat(65)],
    ['a slash', 'x/y'],
  ])('refuses %s, by position and without echoing it', (_, name) => {
    expect(create({ 'x-ok': 'v', [name]: 'v' })).toEqual(['member 2: the name is not an HTTP token of 1 to 64 characters']);
  });

  it.each([
    ['an empty value', ''],
    ['a leading space', ' secret'],
    ['a trailing space', 'secret '],
    ['a line break', 'sec\nret'],
    ['a tab', 'sec\tret'],
    ['a non-ASCII character', 'sécret'],
    ['1025 characters', 'v'.repeat(1025)],
  ])('refuses %s, naming the header and never the value', (_, value) => {
    const problems = create({ 'X-Api-Key': value });
    expect(problems).toEqual([`X-Api-Key: ${VALUE_RULE}`]);
    if (value.length > 0) expect(problems.join()).not.toContain(value.trim());
  });

  it.each([
    ['a number', 1],
    ['an object', { v: 1 }],
    ['an array', ['v']],
    ['true', true],
  ])('refuses %s as a value', (_, value) => {
    expect(create({ 'X-Api-Key': value })).toEqual(['X-Api-Key: value must be a string']);
  });

  it('refuses null as a value on a create, and takes it in a patch (it removes the header)', () => {
    expect(create({ 'X-Api-Key': null })).toEqual(['X-Api-Key: value must be a string']);
    expect(patch({ 'X-Api-Key': null })).toEqual([]);
  });

  it('refuses a refused name even when a patch removes it', () => {
    expect(patch({ Host: null })).toEqual(['Host: not allowed (the service or the connection sets it)']);
  });

  it('lists the first 20 problems of 2 000 bad names, then how many more', () => {
    const problems = create(Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`bad name ${i}`, 'v'])));
    expect(problems).toHaveLength(21);
    expect(problems.slice(-2)).toEqual(['member 20: the name is not an HTTP token of 1 to 64 characters', '… and 1980 more']);
  });

  it('refuses 21 headers and 8193 characters of values', () => {
    expect(create(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`x-h${i}`, 'v'])))).toEqual(['at most 20 headers']);
    const over = { ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`x-h${i}`, 'v'.repeat(1024)])), 'x-one': 'v' };
    expect(create(over)).toEqual(['the values must be at most 8192 characters together']);
  });

  it.each([
    ['an array', [['x', 'v']]],
    ['a string', 'x: v'],
    ['null on a create', null],
  ])('refuses %s', (_, headers) => {
    expect(create(headers)).toEqual(['must be an object of header names and values']);
  });
});

describe('mergeHeaders (docs/api.md 10.15)', () => {
  const stored = [
    ['X-One', '1'],
    ['X-Two', '2'],
    ['X-Three', '3'],
  ] as const;

  it('keeps what the patch does not name, in its order', () => {
    expect(mergeHeaders(stored, {})).toEqual(stored);
  });

  it('removes a header named null, case-insensitively', () => {
    expect(mergeHeaders(stored, { 'x-two': null })).toEqual([
      ['X-One', '1'],
      ['X-Three', '3'],
    ]);
  });

  it('replaces a header in its place, under the name as now sent', () => {
    expect(mergeHeaders(stored, { 'X-TWO': 'two' })).toEqual([
      ['X-One', '1'],
      ['X-TWO', 'two'],
      ['X-Three', '3'],
    ]);
  });

  it('adds new headers after the others, in the order sent, and ignores a null for one it does not have', () => {
    expect(mergeHeaders(stored, { 'X-Four': '4', 'X-None': null, 'X-Five': '5' })).toEqual([...stored, ['X-Four', '4'], ['X-Five', '5']]);
  });
});

describe('headerLimitProblems', () => {
  it('counts a merged set: 20 stored and one more is too many', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => [`x-h${i}`, 'v'] as const);
    expect(headerLimitProblems(twenty)).toEqual([]);
    expect(headerLimitProblems(mergeHeaders(twenty, { 'x-new': 'v' }))).toEqual(['at most 20 headers']);
  });
});

describe('maskedHeaders', () => {
  it('shows every name as sent, each value masked', () => {
    expect(maskedHeaders(['X-Api-Key', 'authorization'])).toEqual({ 'X-Api-Key': '********', authorization: '********' });
  });
});

describe('headerListOf', () => {
  it('reads the stored list of [name, value] pairs, in its order', () => {
    expect(headerListOf(JSON.parse('[["X-Api-Key","k3y"],["Authorization","Bearer abc"]]'))).toEqual([
      ['X-Api-Key', 'k3y'],
      ['Authorization', 'Bearer abc'],
    ]);
    expect(headerListOf([])).toEqual([]);
  });

  it.each([
    ['an object', '{"X-Api-Key":"k3y"}'],
    ['a pair with a number', '[["X-Api-Key",1]]'],
    ['a pair of three', '[["X-Api-Key","k3y","more"]]'],
    ['a name alone', '[["X-Api-Key"]]'],
    ['a string', '"X-Api-Key"'],
    ['null', 'null'],
  ])('finds no list in %s', (_, json) => {
    expect(headerListOf(JSON.parse(json))).toBeUndefined();
  });
});

describe('sendableHeaders (docs/api.md 10.15)', () => {
  it('drops a stored header whose name has since been refused, in any case, and keeps the rest in order', () => {
    const stored = [
      ['X-Api-Key', 'k'],
      ['X-Forwarded-For', '10.0.0.1'],
      ['Cookie', 's=1'],
      ['Authorization', 'Bearer t'],
    ] as const;
    expect(sendableHeaders(stored)).toEqual([
      ['X-Api-Key', 'k'],
      ['Authorization', 'Bearer t'],
    ]);
  });
});
