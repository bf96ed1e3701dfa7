import type { IncomingHttpHeaders } from 'node:http';
import { requestWith } from '../../test/support/unit/request-with';
import { describe, expect, it } from 'vitest';
import { sessionTokenOf, bearerTokenOf } from './credentials';

const TOKEN = 'Abcdefghijklmnopqrstuvwxyz0123456789-_ABCDE';
const OTHER = 'Zyxwvutsrqponmlkjihgfedcba9876543210_-ZYXWV';
const COOKIE = '__Secure-auth.session_token';

describe('sessionTokenOf', () => {
  it('has a 43-character fixture token', () => {
    expect([TOKEN.length, OTHER.length]).toEqual([43, 43]);
  });

  it.each([
    ['the only cookie', `${COOKIE}=${TOKEN}`],
    ['the first of several', `${COOKIE}=${TOKEN}; theme=dark; lang=en`],
    ['among other cookies', `theme=dark; ${COOKIE}=${TOKEN}; lang=en`],
    ['the last of several', `theme=dark; lang=en; ${COOKIE}=${TOKEN}`],
    ['with extra spaces around pairs', `theme=dark;   ${COOKIE}=${TOKEN}  ;lang=en`],
    ['with no space after the semicolon', `theme=dark;${COOKIE}=${TOKEN};lang=en`],
    ['with a quoted value', `theme=dark; ${COOKIE}="${TOKEN}"`],
    ['after a similarly named cookie', `${COOKIE}_old=${OTHER}; ${COOKIE}=${TOKEN}`],
    ['after a cookie whose value contains its name', `x=${COOKIE}=${OTHER}; ${COOKIE}=${TOKEN}`],
  ])('finds the token as %s', (_, header) => {
    expect(sessionTokenOf(header)).toBe(TOKEN);
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['only other cookies', 'theme=dark; lang=en'],
    ['a suffix variant', `${COOKIE}2=${TOKEN}`],
    ['a suffix variant with underscore', `${COOKIE}_legacy=${TOKEN}`],
    ['a prefix variant', `x${COOKIE}=${TOKEN}`],
    ['the name without the __Secure- prefix', `auth.session_token=${TOKEN}`],
    ['the __Host- prefix', `__Host-auth.session_token=${TOKEN}`],
    ['the lowercase name', `${COOKIE.toLowerCase()}=${TOKEN}`],
    ['the uppercase name', `${COOKIE.toUpperCase()}=${TOKEN}`],
    ['the name with a different case in one letter', `__Secure-Auth.session_token=${TOKEN}`],
    ['the name without a value separator', `${COOKIE}; theme=dark`],
    ['the name as a value of another cookie', `other=${COOKIE}`],
  ])('finds nothing with %s', (_, header) => {
    expect(sessionTokenOf(header)).toBeUndefined();
  });

  it.each([
    ['an empty value', `${COOKIE}=`],
    ['a short value', `${COOKIE}=${TOKEN.slice(1)}`],
    ['a long value', `${COOKIE}=${TOKEN}A`],
    ['a value with base64 "+"', `${COOKIE}=${TOKEN.slice(1)}+`],
    ['a value with padding', `${COOKIE}=${TOKEN.slice(1)}=`],
    ['a value with an inner space', `${COOKIE}=${TOKEN.slice(0, 20)} ${TOKEN.slice(21)}`],
    ['a half-quoted value', `${COOKIE}="${TOKEN}`],
    ['a percent-encoded value', `${COOKIE}=${TOKEN.slice(3)}%41`],
    ['only quotes', `${COOKIE}=""`],
  ])('gives undefined for a malformed token: %s', (_, header) => {
    expect(sessionTokenOf(header)).toBeUndefined();
  });
});

describe('bearerTokenOf', () => {
  it.each([
    ['Bearer', `Bearer ${TOKEN}`],
    ['bearer', `bearer ${TOKEN}`],
    ['BEARER', `BEARER ${TOKEN}`],
    ['bEaReR', `bEaReR ${TOKEN}`],
  ])('accepts the scheme written %s', (_, authorization) => {
    expect(bearerTokenOf(requestWith({ authorization }))).toBe(TOKEN);
  });

  it.each([
    ['no Authorization header', undefined],
    ['an empty header', ''],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['another scheme with a well-formed token', `Token ${TOKEN}`],
    ['the scheme alone', 'Bearer'],
    ['the scheme and a trailing space', 'Bearer '],
    ['two spaces after the scheme', `Bearer  ${TOKEN}`],
    ['a tab instead of the space', `Bearer\t${TOKEN}`],
    ['a leading space', ` Bearer ${TOKEN}`],
    ['a trailing space', `Bearer ${TOKEN} `],
    ['an extra segment', `Bearer ${TOKEN} extra`],
    ['two tokens', `Bearer ${TOKEN} ${OTHER}`],
    ['the token without a scheme', TOKEN],
    ['the scheme glued to the token', `Bearer${TOKEN}`],
    ['a malformed token', `Bearer ${TOKEN.slice(1)}`],
    ['a token with base64 padding', `Bearer ${TOKEN.slice(1)}=`],
    ['a newline after the token', `Bearer ${TOKEN}\n`],
  ])('gives undefined for %s', (_, authorization) => {
    const headers: IncomingHttpHeaders = authorization === undefined ? {} : { authorization };
    expect(bearerTokenOf(requestWith(headers))).toBeUndefined();
  });

  it.each([
    ['the session cookie', { cookie: `${COOKIE}=${OTHER}` }],
    ['any cookie', { cookie: 'theme=dark' }],
    ['an empty Cookie header', { cookie: '' }],
    ['a sessionid header', { sessionid: 'abc' }],
    ['an empty sessionid header', { sessionid: '' }],
    ['both', { cookie: 'a=b', sessionid: 'abc' }],
  ])('gives undefined for a valid bearer beside %s', (_, extra) => {
    expect(bearerTokenOf(requestWith({ authorization: `Bearer ${TOKEN}`, ...extra }))).toBeUndefined();
  });

  it.each([
    ['a second, Basic one after it', ['Authorization', 'Basic abc']],
    ['a second bearer with the same token', ['Authorization', `Bearer ${TOKEN}`]],
    ['a second, empty one', ['authorization', '']],
  ])('gives undefined for a valid bearer followed by %s (exactly one Authorization header)', (_, second) => {
    expect(bearerTokenOf(requestWith({ authorization: `Bearer ${TOKEN}` }, second))).toBeUndefined();
  });

  it('gives undefined when only raw headers show the Authorization header (not one of the request)', () => {
    expect(bearerTokenOf({ headers: { authorization: `Bearer ${TOKEN}` }, rawHeaders: [] })).toBeUndefined();
  });

  it('ignores unrelated headers beside a valid bearer', () => {
    expect(bearerTokenOf(requestWith({ authorization: `Bearer ${TOKEN}`, 'user-agent': 'wallet/1.0', accept: 'application/json' }))).toBe(
      TOKEN,
    );
  });
});
