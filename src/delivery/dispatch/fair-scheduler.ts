/** A webhook with due deliveries, as the dispatcher's scan found it. */
export interface DueWebhook {
  readonly webhookId: number;
  readonly organizationId: number;
  /** When its oldest due delivery became due (ms since the epoch). */
  readonly dueAt: number;
}

/**
 * Shares `free` attempt slots among webhooks with due deliveries (docs/api.md 10.10): the
 * organizations take turns, the one whose delivery has waited longest first, and within an
 * organization its webhooks take turns the same way; one slot per turn, each webhook at most
 * `room(webhookId)`. A backlog, however old, earns one webhook no more than its room, and an
 * organization with many webhooks no more turns than one with a single webhook.
 */
export function fairShares(due: readonly DueWebhook[], free: number, room: (webhookId: number) => number): Map<number, number> {
  const byOrganization = new Map<number, DueWebhook[]>();
  for (const webhook of [...due].sort((a, b) => a.dueAt - b.dueAt)) {
    const list = byOrganization.get(webhook.organizationId) ?? [];
    list.push(webhook);
    byOrganization.set(webhook.organizationId, list);
  }
  const turns = [...byOrganization.values()].map((webhooks) => ({ webhooks, next: 0 }));
  const rooms = new Map(due.map((webhook) => [webhook.webhookId, Math.max(0, room(webhook.webhookId))]));
  const shares = new Map<number, number>();
  let left = free;
  while (left > 0) {
    let gave = false;
    for (const turn of turns) {
      if (left === 0) break;
      for (let i = 0; i < turn.webhooks.length; i++) {
        const { webhookId } = turn.webhooks[(turn.next + i) % turn.webhooks.length];
        const share = shares.get(webhookId) ?? 0;
        if (share >= rooms.get(webhookId)!) continue;
        shares.set(webhookId, share + 1);
        turn.next = (turn.next + i + 1) % turn.webhooks.length;
        left--;
        gave = true;
        break;
      }
    }
    if (!gave) break;
  }
  return shares;
}
