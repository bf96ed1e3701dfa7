import { describe, expect, it } from 'vitest';
import { MAX_LISTED_PROBLEMS, Problems } from './problems';

describe('Problems (docs/api.md 7)', () => {
  const problemsOf = (n: number) => {
    const problems = new Problems();
    for (let i = 0; i < n; i++) problems.add(`p${i}`);
    return problems;
  };

  it('lists every problem while there are at most 20', () => {
    expect(problemsOf(MAX_LISTED_PROBLEMS).messages).toEqual(Array.from({ length: 20 }, (_, i) => `p${i}`));
  });

  it('lists the first 20, then how many more there were', () => {
    const { messages, count } = problemsOf(100_000);
    expect(count).toBe(100_000);
    expect(messages).toHaveLength(21);
    expect(messages.slice(-2)).toEqual(['p19', '… and 99980 more']);
  });

  it('words a lazy problem only while it would be listed', () => {
    const problems = problemsOf(MAX_LISTED_PROBLEMS);
    problems.addLazily(() => {
      throw new Error('worded');
    });
    expect(problems.count).toBe(21);
  });

  it('adds another input’s problems with their count, those it did not list included', () => {
    const all = problemsOf(5);
    all.addAll(problemsOf(30));
    expect(all.count).toBe(35);
    expect(all.messages.slice(-2)).toEqual(['p14', '… and 15 more']);
  });
});
