import { readFile } from 'node:fs/promises';
import { InvalidArgumentError } from 'commander';

// The command line's input (docs/api.md 8): commander's option parsers, each refusing a value
// with InvalidArgumentError (printed as a `usage` failure), and a secret read from standard
// input. What a command prints is cli-output.ts.

/** A command line that names no runnable command. */
export class UsageError extends Error {}

export function parseId(value: string): number {
  if (!/^[1-9]\d{0,9}$/.test(value) || Number(value) > 2_147_483_647) throw new InvalidArgumentError('must be a positive integer id');
  return Number(value);
}

/** A comma-separated list of ids (`1,2,5`): each a positive integer id, repeats dropped, in the order given. */
export function parseIdList(value: string): number[] {
  const ids = value.split(',').map((part) => part.trim());
  if (ids.some((part) => part === '')) throw new InvalidArgumentError('must be ids separated by commas');
  return [...new Set(ids.map(parseId))];
}

/** Whole days, 1 to 36500 (a hundred years keeps every date inside the datetime columns). */
export function parseDays(value: string): number {
  if (!/^[1-9]\d{0,4}$/.test(value) || Number(value) > 36_500)
    throw new InvalidArgumentError('must be a whole number of days from 1 to 36500');
  return Number(value);
}

/** A whole number from 1 to `max` (how many entries to print). */
export function parseLimit(value: string, max: number): number {
  if (!/^[1-9]\d{0,9}$/.test(value) || Number(value) > max) throw new InvalidArgumentError(`must be a whole number from 1 to ${max}`);
  return Number(value);
}

export function parseSeconds(value: string): number {
  if (!/^[1-9]\d{0,9}$/.test(value)) throw new InvalidArgumentError('must be a positive whole number of seconds');
  return Number(value);
}

/**
 * A secret option's value: `-` reads it from standard input instead (up to the end, one
 * trailing line break dropped), so that it appears neither in `ps` nor in shell history.
 */
export async function secretArgument(value: string): Promise<string> {
  if (value !== '-') return value;
  const text = (await readAll(process.stdin)).replace(/\r?\n$/, '');
  if (text.trim() === '') throw new UsageError('standard input (given as -) is empty');
  return text;
}

/**
 * The JSON a file option names (`event send --file`), `-` reading standard input: a file that
 * cannot be read, or whose text is not JSON, is a usage error naming the option and the file.
 */
export async function jsonFileArgument(option: string, path: string, stdin: AsyncIterable<unknown> = process.stdin): Promise<unknown> {
  const source = path === '-' ? 'standard input' : path;
  let text: string;
  try {
    text = path === '-' ? await readAll(stdin) : await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${option} ${source}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${option} ${source}: not JSON (${(error as Error).message})`);
  }
}

async function readAll(stream: AsyncIterable<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export function parseText(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must not be empty');
  return value;
}

/** commander's own `choices` check is replaced by a parser, so choices are checked here. */
export function parseChoice<T extends string>(value: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${choices.join(', ')}`);
  return value as T;
}
