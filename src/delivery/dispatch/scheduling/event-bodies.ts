interface HeldBody<T> {
  readonly bytes: number;
  /** Deliveries that hold it: claimed by this instance and not yet finished. */
  refs: number;
  body?: Buffer;
  /** What else every attempt of the event needs, held with its body (its trace). */
  about?: T;
}

/**
 * The event bodies an instance holds for its deliveries in flight or waiting (docs/api.md 10.10):
 * each once however many of its deliveries are held, counted in bytes against DELIVERY_BUFFER_MB.
 * A delivery is taken only when its body is held already or fits; past the budget, deliveries
 * wait in the database. A body larger than the whole budget is taken when nothing else is held,
 * so that no event is stuck for ever.
 */
export class EventBodies<T = never> {
  private readonly held = new Map<string, HeldBody<T>>();
  private used = 0;
  /** New bodies a claim in progress has chosen (reserve), counted until its deliveries are taken or it fails. */
  private reserved = 0;

  constructor(private readonly budgetBytes: number) {}

  get bytes(): number {
    return this.used;
  }

  /** Whether one more delivery of the event, whose body has `bytes`, may be held. */
  fits(eventId: string, bytes: number): boolean {
    return this.held.has(eventId) || this.room(bytes);
  }

  /** Whether a new body of `bytes` fits. */
  room(bytes: number): boolean {
    const used = this.used + this.reserved;
    return used === 0 || used + bytes <= this.budgetBytes;
  }

  /**
   * Of `wanted`, in order, those that fit together, their new bodies set aside until the claim
   * that asks ends (unreserve): hand-offs accepted meanwhile see them as used. Asked again (the
   * claim's transaction run again), the new choice replaces the earlier one.
   */
  reserve<W extends { readonly eventId: string; readonly bodyBytes: number }>(wanted: readonly W[]): W[] {
    const adding = new Set<string>();
    let used = this.used;
    const chosen = wanted.filter(({ eventId, bodyBytes }) => {
      if (this.held.has(eventId) || adding.has(eventId)) return true;
      if (used !== 0 && used + bodyBytes > this.budgetBytes) return false;
      adding.add(eventId);
      used += bodyBytes;
      return true;
    });
    this.reserved = used - this.used;
    return chosen;
  }

  /** The claim has ended: what it took is held (take), the rest of its reservation let go. */
  unreserve(): void {
    this.reserved = 0;
  }

  /** Holds the body for one more delivery (fits() first); the body itself may come later (`put`). */
  take(eventId: string, bytes: number): void {
    const found = this.held.get(eventId);
    if (found !== undefined) {
      found.refs++;
      return;
    }
    this.held.set(eventId, { bytes, refs: 1 });
    this.used += bytes;
  }

  put(eventId: string, body: Buffer, about: T): void {
    const found = this.held.get(eventId);
    if (found === undefined) return;
    found.body = body;
    found.about = about;
  }

  get(eventId: string): Buffer | undefined {
    return this.held.get(eventId)?.body;
  }

  /** What was put with the body. */
  about(eventId: string): T | undefined {
    return this.held.get(eventId)?.about;
  }

  /** Whether the body of a held event is still to be read. */
  missing(eventId: string): boolean {
    const found = this.held.get(eventId);
    return found !== undefined && found.body === undefined;
  }

  /** One delivery is done with the body; the last one lets it go. */
  drop(eventId: string): void {
    const found = this.held.get(eventId);
    if (found === undefined || --found.refs > 0) return;
    this.held.delete(eventId);
    this.used -= found.bytes;
  }
}
