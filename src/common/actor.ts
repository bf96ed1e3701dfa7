/**
 * Who makes a change, as the audit trails record it (docs/api.md 10.9, 8): a console user (a
 * session's), the operator (the CLI), or the service itself (it disables a webhook that has failed
 * for days). A service opens its unit of work with the actor (UnitOfWork.run), and AuditTrail reads
 * it from the transaction, so that no repository write takes it as a parameter. Carried explicitly,
 * not in an AsyncLocalStorage: on Node 20 one active store puts a hook on every promise of the
 * process, the dispatcher's included (about 2.5 times the cost of an await, measured).
 */
export type Actor = { readonly kind: 'user'; readonly userId: number } | { readonly kind: 'operator' } | { readonly kind: 'service' };

export const OPERATOR: Actor = { kind: 'operator' };
export const SERVICE: Actor = { kind: 'service' };

/** The user a console request acts as. */
export const actorOf = (caller: { readonly userId: number }): Actor => ({ kind: 'user', userId: caller.userId });
