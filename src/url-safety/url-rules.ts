import { isPublicAddress } from './public-address';

export const MAX_URL_LENGTH = 2048;

/** The static verdict on one URL (docs/api.md 5.1 rules 1-5): no network involved. */
export type UrlCheck =
  { readonly ok: true; readonly href: string; readonly hostname?: string } | { readonly ok: false; readonly problem: string };

/** Whitespace, control, format and separator characters: the WHATWG parser would drop some. */
const INVISIBLE = /[\p{C}\p{Z}\s]/u;
const DOTTED_IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const SPECIAL_USE_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.onion', '.invalid', '.alt'];

const fail = (problem: string): UrlCheck => ({ ok: false, problem });
export const NOT_PUBLIC = 'must not point to a private, loopback or reserved address';

/** The port a URL that passed the rules connects to: its own, else https's 443 (the parser drops `:443`). */
export const portOf = (href: string): number => Number(new URL(href).port || 443);

/**
 * Rules 1-5 of docs/api.md 5.1. One WHATWG parse decides everything; its `href` is what is stored.
 * When the host is a name, `hostname` is returned for resolution (rule 6); an IP literal is
 * judged here (by `allows`: public, or inside TRUSTED_CIDRS on one of its entry's ports) and
 * needs none.
 */
export function checkUrl(value: string, allows: (address: string, port: number) => boolean = isPublicAddress): UrlCheck {
  if ([...value].length > MAX_URL_LENGTH) return fail(`must be at most ${MAX_URL_LENGTH} characters`);
  if (INVISIBLE.test(value)) return fail('must not contain whitespace, control or invisible characters');

  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('must be an absolute URL');
  }
  if (url.protocol !== 'https:') return fail('must use https');
  if (url.username !== '' || url.password !== '') return fail('must not contain a username or password');
  if (url.port === '0') return fail('port must be between 1 and 65535');
  // Percent-encoding and IDNA can make the normalized form longer than what was sent.
  if (url.href.length > MAX_URL_LENGTH) return fail(`must be at most ${MAX_URL_LENGTH} characters once normalized`);

  const host = url.hostname;
  const port = Number(url.port || 443);
  if (host.startsWith('[')) return allows(host.slice(1, -1), port) ? { ok: true, href: url.href } : fail(NOT_PUBLIC);
  if (DOTTED_IPV4.test(host)) return allows(host, port) ? { ok: true, href: url.href } : fail(NOT_PUBLIC);

  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name === 'localhost') return fail('must not point to localhost');
  if (!name.includes('.')) return fail('host must be a fully qualified domain name');
  // Empty labels (a.. or a second trailing dot) are no name a resolver would take.
  if (name.split('.').includes('')) return fail('host must be a valid domain name');
  if (SPECIAL_USE_SUFFIXES.some((suffix) => name.endsWith(suffix) || name === suffix.slice(1))) {
    return fail('host must not be a special-use name');
  }
  return { ok: true, href: url.href, hostname: host };
}
