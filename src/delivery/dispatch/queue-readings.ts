/** What the queue holds at a moment, as monitoring's gauges read it (docs/api.md 9). */
export interface QueueStats {
  readonly pending: number;
  /** When the longest-waiting due delivery became due (ms since the epoch); null: none is due. */
  readonly oldestDueAt: number | null;
  readonly breakersOpen: number;
}

/** The port DispatchModule exports to monitoring, bound to DeliveryQueue: one reading of the queue. */
export abstract class QueueReadings {
  abstract stats(now: number): Promise<QueueStats>;
}
