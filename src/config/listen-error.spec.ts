import { describe, expect, it } from 'vitest';
import { ConfigError } from './environment';
import { listenErrorOf } from './listen-error';

const failure = (code: string) => Object.assign(new Error(`listen ${code}`), { code });
const at = { port: 3000, host: 'api.internal' };

describe('listenErrorOf', () => {
  it.each([
    ['EADDRINUSE', 'PORT: 3000 is in use on api.internal'],
    ['EACCES', 'PORT: 3000 may not be bound by this user'],
    ['EADDRNOTAVAIL', 'HOST: api.internal is not an address of this machine'],
    ['ENOTFOUND', 'HOST: api.internal does not resolve'],
  ])('names the variable of a listener failing with %s', (code, line) => {
    const error = listenErrorOf(failure(code), at);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(line);
  });

  it('leaves any other error as it was', () => {
    const other = failure('EMFILE');
    expect(listenErrorOf(other, at)).toBe(other);
  });
});
