import { describe, expect, it } from 'vitest';
import { AccessTokens, MAX_HELD_BYTES, TokenResult } from './access-tokens';

/** A token request answered when the test says, counted. */
function requests() {
  const made: ((result: TokenResult<string>) => void)[] = [];
  const request = () => new Promise<TokenResult<string>>((resolve) => made.push(resolve));
  const answer = (result: TokenResult<string>, which = made.length - 1) => made[which](result);
  return {
    made,
    request,
    answer,
    /** Webhook 1's first token under settings `a`, asked for and answered `result`. */
    held: async (tokens: AccessTokens<string>, result: TokenResult<string>) => {
      const asked = tokens.get(1, 'a', request);
      answer(result);
      return asked;
    },
  };
}
const token = (value: string, expiresInSeconds?: number): TokenResult<string> => ({
  ok: true,
  token: { value, ...(expiresInSeconds !== undefined && { expiresInSeconds }) },
});

describe('AccessTokens (docs/api.md 10.16)', () => {
  const setUp = () => {
    let now = 1_000_000;
    const tokens = new AccessTokens<string>(() => now);
    return { tokens, advance: (ms: number) => (now += ms) };
  };

  it('makes one request for every attempt that needs a token while it is on its way, and gives them all its token', async () => {
    const { tokens } = setUp();
    const { made, request, answer } = requests();
    const waiting = Array.from({ length: 50 }, () => tokens.get(1, 'a', request));
    expect(made).toHaveLength(1);
    answer(token('t1', 3600));
    expect(new Set((await Promise.all(waiting)).map((result) => result.ok && result.token.value))).toEqual(new Set(['t1']));
  });

  it('reuses a token until 30 s before its lifetime ends, counted from when it was asked for', async () => {
    const { tokens, advance } = setUp();
    const { made, request, answer } = requests();
    const first = tokens.get(1, 'a', request);
    advance(5_000); // the answer takes 5 s
    answer(token('t1', 100));
    await first;
    advance(64_999); // 69.999 s after the request: 30 s before 100 s, less 1 ms
    expect(await tokens.get(1, 'a', request)).toEqual(token('t1', 100));
    advance(1);
    void tokens.get(1, 'a', request);
    expect(made).toHaveLength(2);
  });

  it('takes a lifetime of 300 s when the answer gave none', async () => {
    const { tokens, advance } = setUp();
    const { made, request, held } = requests();
    await held(tokens, token('t1'));
    advance(269_999);
    await tokens.get(1, 'a', request);
    expect(made).toHaveLength(1);
    advance(1);
    void tokens.get(1, 'a', request);
    expect(made).toHaveLength(2);
  });

  it('never holds a failure: the next attempt asks again', async () => {
    const { tokens } = setUp();
    const { made, request, held } = requests();
    expect(await held(tokens, { ok: false, failure: 'timeout' })).toEqual({ ok: false, failure: 'timeout' });
    void tokens.get(1, 'a', request);
    expect(made).toHaveLength(2);
  });

  it('drops a token the receiver refused, but not a newer one that replaced it', async () => {
    const { tokens } = setUp();
    const { made, request, answer, held } = requests();
    await held(tokens, token('t1', 3600));
    tokens.drop(1, 'a', 't1');
    const second = tokens.get(1, 'a', request);
    answer(token('t2', 3600));
    await second;
    tokens.drop(1, 'a', 't1'); // a late 401 of an attempt that still had t1
    expect(await tokens.get(1, 'a', request)).toEqual(token('t2', 3600));
    expect(made).toHaveLength(2);
  });

  it('never uses a token under other settings, nor for another webhook', async () => {
    const { tokens } = setUp();
    const { made, request, answer, held } = requests();
    await held(tokens, token('t1', 3600));
    const changed = tokens.get(1, 'b', request);
    const other = tokens.get(2, 'a', request);
    expect(made).toHaveLength(3);
    answer(token('t2', 3600), 1);
    answer(token('t3', 3600), 2);
    expect([await changed, await other]).toEqual([token('t2', 3600), token('t3', 3600)]);
  });

  it('does not hold a token that arrives for settings replaced while it was on its way', async () => {
    const { tokens } = setUp();
    const { made, request, answer } = requests();
    const old = tokens.get(1, 'a', request);
    const changed = tokens.get(1, 'b', request);
    answer(token('old', 3600), 0);
    expect(await old).toEqual(token('old', 3600));
    answer(token('new', 3600), 1);
    await changed;
    expect(await tokens.get(1, 'b', request)).toEqual(token('new', 3600));
    void tokens.get(1, 'a', request);
    expect(made).toHaveLength(3);
  });

  it('lets the next attempt ask again when a request throws', async () => {
    const { tokens } = setUp();
    let calls = 0;
    const failing = () => {
      calls++;
      return Promise.reject(new Error('bug'));
    };
    await expect(tokens.get(1, 'a', failing)).rejects.toThrow('bug');
    await expect(tokens.get(1, 'a', failing)).rejects.toThrow('bug');
    expect(calls).toBe(2);
  });

  it('holds tokens up to MAX_HELD_BYTES, forgetting the webhooks whose token was asked for longest ago', async () => {
    const { tokens } = setUp();
    const longest = 'x'.repeat(4096);
    for (let webhookId = 1; webhookId <= 2_000; webhookId++) {
      await tokens.get(webhookId, 'a', async () => token(`${webhookId}${longest}`.slice(0, 4096), 3600));
    }
    expect(tokens.heldBytes).toBeLessThanOrEqual(MAX_HELD_BYTES);
    const asked: number[] = [];
    const counted = (webhookId: number) => () => (asked.push(webhookId), Promise.resolve(token('again', 3600)));
    await tokens.get(2_000, 'a', counted(2_000));
    await tokens.get(1, 'a', counted(1));
    expect(asked).toEqual([1]);
  });

  it('counts a dropped token out of the bytes held', async () => {
    const { tokens } = setUp();
    const { held } = requests();
    await held(tokens, token('x'.repeat(4096), 3600));
    const holding = tokens.heldBytes;
    tokens.drop(1, 'a', 'x'.repeat(4096));
    expect(holding - tokens.heldBytes).toBe(4096);
  });
});
