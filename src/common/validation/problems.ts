/** docs/api.md 7: an answer's `message` lists at most this many problems, then how many more there were. */
export const MAX_LISTED_PROBLEMS = 20;

/**
 * The problems of one input, counted without bound but kept only as far as an answer lists them
 * (MAX_LISTED_PROBLEMS, then `… and N more`): a body of 100 000 unknown members costs a count,
 * not 100 000 strings, and its answer stays small.
 */
export class Problems {
  private readonly listed: string[] = [];
  private counted = 0;

  get count(): number {
    return this.counted;
  }

  add(problem: string): void {
    if (this.listed.length < MAX_LISTED_PROBLEMS) this.listed.push(problem);
    this.counted++;
  }

  /** `problem` added only when it would be listed: the one that makes it lets the caller skip the words (a path of each unknown member). */
  addLazily(problem: () => string): void {
    if (this.listed.length < MAX_LISTED_PROBLEMS) this.listed.push(problem());
    this.counted++;
  }

  addAll(other: Problems): void {
    for (const problem of other.listed) this.add(problem);
    this.counted += other.counted - other.listed.length;
  }

  /** The answer's `message`: the first MAX_LISTED_PROBLEMS, then `… and N more` when there were more. */
  get messages(): string[] {
    const more = this.counted - this.listed.length;
    return more > 0 ? [...this.listed, `… and ${more} more`] : [...this.listed];
  }
}
