import ipaddr from 'ipaddr.js';
import { Errors } from '../../common/domain-error';
import { parseIpAddress } from '../../common/ip-address';
import type { ProcessorAdapter, ProcessorCredentials } from './processor';

/*
 * What an operator gives a processor issuer (docs/api.md 6.1, 8): its base URL and the program's
 * credentials, each checked before anything is stored. Problems name the option or the member,
 * never a value: the credentials file holds secrets.
 */

/** A credential's longest value: the sealed JSON of every credential must fit its column. */
const MAX_CREDENTIAL_LENGTH = 255;

/** 127.0.0.0/8 or ::1, written as an address (the WHATWG parser's normal form): never a name such as localhost. */
function isLoopbackLiteral(hostname: string): boolean {
  const address = parseIpAddress(hostname.replace(/^\[|\]$/g, ''));
  if (address === undefined) return false;
  return address.kind() === 'ipv4' ? address.match(ipaddr.IPv4.parse('127.0.0.0'), 8) : address.toNormalizedString() === '0:0:0:0:0:0:0:1';
}

/**
 * The base URL the processor's paths are appended to, normalized without a trailing slash: https,
 * or http to a loopback address literal outside production (a processor simulator on this
 * machine); no credentials, query or fragment.
 */
export function processorBaseUrl(text: string, production: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw Errors.invalid('--base-url: must be an absolute URL');
  }
  if (url.username !== '' || url.password !== '') throw Errors.invalid('--base-url: must not hold a user name or password');
  if (url.search !== '' || url.hash !== '' || text.includes('?') || text.includes('#')) {
    throw Errors.invalid('--base-url: must have no query or fragment');
  }
  if (url.protocol === 'http:') {
    if (production) throw Errors.invalid('--base-url: must use https with NODE_ENV=production');
    if (!isLoopbackLiteral(url.hostname))
      throw Errors.invalid('--base-url: must use https (http only to a loopback address, 127.0.0.0/8 or [::1])');
  } else if (url.protocol !== 'https:') {
    throw Errors.invalid('--base-url: must use https');
  }
  return url.href.replace(/\/+$/, '');
}

/** The credentials the operator's file holds for `adapter`: a JSON object of exactly its members, each a string of 1 to 255 characters. */
export function processorCredentials(adapter: ProcessorAdapter, file: unknown): ProcessorCredentials {
  const expected = `a JSON object of ${adapter.credentialNames.map((name) => `"${name}"`).join(' and ')}`;
  if (typeof file !== 'object' || file === null || Array.isArray(file)) throw Errors.invalid(`--credentials-file: must hold ${expected}`);
  const given = file as Record<string, unknown>;
  // Not even an unknown member's name is echoed: an operator may have put a secret anywhere in the file.
  if (Object.keys(given).some((name) => !adapter.credentialNames.includes(name))) {
    throw Errors.invalid(`--credentials-file: has unknown members; must hold ${expected}`);
  }
  for (const name of adapter.credentialNames) {
    const value = given[name];
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_CREDENTIAL_LENGTH || /\p{Cc}/u.test(value)) {
      throw Errors.invalid(
        `--credentials-file: "${name}" must be a string of 1 to ${MAX_CREDENTIAL_LENGTH} characters without control characters`,
      );
    }
  }
  return Object.fromEntries(adapter.credentialNames.map((name) => [name, given[name] as string]));
}
