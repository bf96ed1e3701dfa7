import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who makes the changes of the work running now, as the audit trails record them (docs/api.md
 * 10.9, 8): a console user (a session's), the operator (the CLI), or the service itself (it
 * disables a webhook that has failed for days). Set once where the work starts: ActingInterceptor
 * for a session's request, cli.ts for a command, the disabling for its own; read where a change is
 * recorded (AuditTrail), so that no write takes it as a parameter.
 */
export type Actor = { readonly kind: 'user'; readonly userId: number } | { readonly kind: 'operator' } | { readonly kind: 'service' };

export const OPERATOR: Actor = { kind: 'operator' };
export const SERVICE: Actor = { kind: 'service' };

const acting = new AsyncLocalStorage<Actor>();

/** Runs `work` as `actor`: everything it starts, awaited or not, is done by `actor`. */
export function actingAs<T>(actor: Actor, work: () => T): T {
  return acting.run(actor, work);
}

/** The actor of the work running now; a change recorded outside any is a bug (a route or a task that does not say who acts). */
export function currentActor(): Actor {
  const actor = acting.getStore();
  if (actor === undefined) throw new Error('a change is being recorded with no actor: run it in actingAs');
  return actor;
}
