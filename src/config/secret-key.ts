import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { makePrivateDirectory } from '../common/private-directory';
import { ConfigError } from './environment';

const KEY_BYTES = 32;

export function decodeKey(variable: string, base64: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== KEY_BYTES || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64.trim())) {
    throw new ConfigError(variable, `must be the base64 of ${KEY_BYTES} bytes`);
  }
  return key;
}

/** Why a key file is not private enough (group or others may read or write it), or undefined. */
export function keyFileExposure(path: string): string | undefined {
  const mode = statSync(path).mode & 0o777;
  return (mode & 0o077) === 0
    ? undefined
    : `the key file ${path} has mode ${mode.toString(8).padStart(4, '0')}: someone other than its owner can read or change it (chmod 600)`;
}

/**
 * The development key file (docs/api.md 9): created once with mode 0600 (in a 0700 directory)
 * and read back by every later start. Several instances may start at once on a fresh
 * directory, so the file is written aside and hard-linked into place, which either wins
 * atomically or finds the winner's file.
 */
export function readOrCreateKeyFile(path: string): Buffer {
  makePrivateDirectory(dirname(path));
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(aside, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(aside, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(aside);
  }
  return decodeKey(`SECRET_KEY (file ${path})`, readFileSync(path, 'utf8'));
}

export interface SecretKeys {
  /** Encrypts every new secret. */
  readonly current: Buffer;
  /** Still decrypt secrets written before a rotation. */
  readonly previous: readonly Buffer[];
}

const DEFAULT_KEY_FILE = 'data/secret.key';

/** Production takes its key only from SECRET_KEY, never from a file. */
export function currentKey(secretKey: string | undefined, production: boolean, cwd: string, warnings: string[]): Buffer {
  if (secretKey !== undefined) return decodeKey('SECRET_KEY', secretKey);
  if (production) throw new ConfigError('SECRET_KEY', 'required when NODE_ENV=production (base64 of 32 bytes)');
  const path = resolve(cwd, DEFAULT_KEY_FILE);
  const key = readOrCreateKeyFile(path);
  const exposure = keyFileExposure(path);
  if (exposure !== undefined) warnings.push(exposure);
  return key;
}
