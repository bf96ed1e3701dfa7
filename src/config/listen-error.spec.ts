import { describe, expect, it } from 'vitest';
import { ConfigError } from './environment';
import { API_VARIABLES, listenErrorOf, METRICS_VARIABLES } from './listen-error';

const failure = (code: string) => Object.assign(new Error(`listen ${code}`), { code });
const at = { port: 3000, host: 'api.internal', variables: API_VARIABLES };

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

  it.each([
    ['EADDRINUSE', 'METRICS_PORT: 9464 is in use on 127.0.0.1'],
    ['EADDRNOTAVAIL', 'METRICS_HOST: 127.0.0.1 is not an address of this machine'],
  ])("names the metrics listener's own variable when it fails with %s", (code, line) => {
    const error = listenErrorOf(failure(code), { port: 9464, host: '127.0.0.1', variables: METRICS_VARIABLES });
    expect((error as Error).message).toBe(line);
  });

  it('leaves any other error as it was', () => {
    const other = failure('EMFILE');
    expect(listenErrorOf(other, at)).toBe(other);
  });
});
