/** What a delivery attempt came to, as the metrics see it (the delivery feature's AttemptOutcome has this shape). */
export interface AttemptResult {
  readonly ok: boolean;
  /** The delivery log's error name (docs/api.md 10.7), null when it succeeded. */
  readonly error: string | null;
  readonly durationMs: number;
}

/** The route label of a request no route matched: Nest's catch-all 404, or answered before routing (415, 413, a 401 of POST /events). */
export const UNMATCHED_ROUTE = 'unmatched';

/** The route pattern Express matched (`/api/webhook/:name`), never the path: a label takes only a few values. */
export const routeLabel = (matched: string | null): string => matched ?? UNMATCHED_ROUTE;

/**
 * An attempt's outcome as a label: `ok`, or the error the delivery log names (docs/api.md
 * 10.7), its HTTP statuses collapsed to their class (`http 4xx`), so that a receiver answering
 * odd statuses adds no series.
 */
export function attemptOutcomeLabel(outcome: Pick<AttemptResult, 'ok' | 'error'>): string {
  if (outcome.ok) return 'ok';
  const status = /^http (\d)\d\d$/.exec(outcome.error ?? '');
  if (status !== null) return `http ${status[1]}xx`;
  return outcome.error ?? 'internal error';
}
