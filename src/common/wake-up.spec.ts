import { describe, expect, it } from 'vitest';
import { WakeUp } from './wake-up';

describe('WakeUp', () => {
  it('sleeps until the time given', async () => {
    const started = Date.now();
    await new WakeUp().until(started + 30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('ends a pause at once when poked', async () => {
    const sut = new WakeUp();
    const started = Date.now();
    const paused = sut.until(started + 10_000);
    sut.poke();
    await paused;
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('keeps a poke made while no pause runs for the next one, once', async () => {
    const sut = new WakeUp();
    sut.poke();
    const started = Date.now();
    await sut.until(started + 10_000);
    expect(Date.now() - started).toBeLessThan(1000);
    await sut.until(Date.now() + 30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });
});
