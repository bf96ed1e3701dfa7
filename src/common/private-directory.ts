import { mkdirSync } from 'node:fs';

/** A directory for keys and the database file: created readable by its owner only (0700). */
export function makePrivateDirectory(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
}
