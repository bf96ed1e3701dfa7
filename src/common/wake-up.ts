/**
 * A loop's pause (the dispatcher's, the recovery worker's): it ends at a given time, or at once
 * when poked. A poke while the loop is busy is kept for its next pause, so that no wake-up is lost.
 */
export class WakeUp {
  private wake: (() => void) | undefined;
  private poked = false;

  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  /** Until `at` (ms since the epoch) or the next poke, whichever comes first. */
  async until(at: number): Promise<void> {
    if (!this.poked) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(finish, Math.max(0, at - Date.now()));
        this.wake = finish;
        function finish() {
          clearTimeout(timer);
          resolve();
        }
      });
      this.wake = undefined;
    }
    this.poked = false;
  }
}
