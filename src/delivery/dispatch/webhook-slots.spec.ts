import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from './delivery-queue';
import { WebhookSlots } from './webhook-slots';

const delivery = {} as ClaimedDelivery;

describe('WebhookSlots', () => {
  it('has room until DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK attempts are in flight', () => {
    const slots = new WebhookSlots(2);
    slots.inFlight = 1;
    expect(slots.hasRoom).toBe(true);
    slots.inFlight = 2;
    expect(slots.hasRoom).toBe(false);
  });

  it('counts waiting deliveries against the slots a claim may fill', () => {
    const slots = new WebhookSlots(4);
    slots.inFlight = 1;
    slots.waiting.push(delivery, delivery);
    expect(slots.free).toBe(1);
  });

  it('lets a slot’s worth wait before any attempt time is known', () => {
    expect(new WebhookSlots(4).waitingLimit).toBe(4);
  });

  it('lets about a second of a fast webhook’s work wait', () => {
    const fast = new WebhookSlots(4);
    fast.observe(20);
    expect(fast.waitingLimit).toBe(200);
  });

  it('lets at most 256 wait, however fast the webhook', () => {
    const fastest = new WebhookSlots(4);
    fastest.observe(0.1);
    expect(fastest.waitingLimit).toBe(256);
  });

  it('lets nothing wait for a webhook whose attempts take seconds (a slow or silent receiver)', () => {
    const slow = new WebhookSlots(4);
    slow.observe(10_000);
    expect(slow.waitingLimit).toBe(0);
  });

  it('follows the attempt times as they change', () => {
    const slots = new WebhookSlots(4);
    slots.observe(10);
    for (let i = 0; i < 30; i++) slots.observe(10_000);
    expect(slots.waitingLimit).toBe(0);
  });
});
