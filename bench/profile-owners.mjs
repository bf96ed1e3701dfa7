// What each layer of a request costs, from a V8 CPU profile of the server under load:
//
//   node bench/profile-owners.mjs PROFILE.cpuprofile [US_PER_REQUEST] [--within OWNER]
//
// Each busy sample goes to the innermost frame on its stack that has an owner: one of this
// service's source files (through dist/'s source maps, e.g. src/logging/request-log.middleware.ts),
// one of the framework's packages (express, router, @nestjs/core, @nestjs/platform-express,
// @nestjs/throttler, body-parser, typeorm, mysql2), Node's HTTP parser, or the garbage collector.
// A library called by one of them (pino from the request log, class-validator from a pipe,
// node:crypto from the authenticator) counts for its caller; Node's own work outside all of them
// (the HTTP lifecycle's events, timers, the start) is "other". Prints each owner's share of the
// busy samples and, given the server's CPU per request (µs, from /proc while measured), its µs.
// --within OWNER lists the functions whose samples went to OWNER, by self time.
//
// The profile: BENCH_PROFILE_DIR=DIR on a bench run (harness.startServer passes --cpu-prof), or
// `node --cpu-prof --cpu-prof-dir=DIR` for another server (the floor's files are not bundled: their
// package is read from the path). docs/performance.md, *Reads: what each layer costs*, was
// measured so.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join } from 'node:path';
import { DIST } from './harness.mjs';

const args = process.argv.slice(2);
const withinAt = args.indexOf('--within');
const within = withinAt === -1 ? undefined : args.splice(withinAt, 2)[1];
const [file, usPerRequest] = args;
if (!file) {
  process.stderr.write('usage: node bench/profile-owners.mjs PROFILE.cpuprofile [US_PER_REQUEST] [--within OWNER]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));

const OWNER_PACKAGES =
  /node_modules\/(express|router|@nestjs\/core|@nestjs\/platform-express|@nestjs\/throttler|mysql2|body-parser|typeorm)\//;
const maps = new Map();
function mapOf(url) {
  const name = url.split('/').pop();
  if (!maps.has(name)) {
    try {
      maps.set(name, new SourceMap(JSON.parse(readFileSync(join(DIST, `${name}.map`), 'utf8'))));
    } catch {
      maps.set(name, null);
    }
  }
  return maps.get(name);
}

const owners = new Map();
function ownerOf(node) {
  if (owners.has(node.id)) return owners.get(node.id);
  const { functionName, url, lineNumber, columnNumber } = node.callFrame;
  let owner = null;
  if (functionName === '(garbage collector)') owner = 'garbage collection';
  else if (url.includes('/dist/')) {
    const map = mapOf(url);
    const source = (map && map.findEntry(lineNumber, columnNumber).originalSource) ?? '';
    if (source.startsWith('../build/')) owner = source.replace('../build/', 'src/').replace(/\.js$/, '.ts');
    else owner = OWNER_PACKAGES.exec(source)?.[1] ?? null;
  } else if (url.includes('node_modules/')) owner = OWNER_PACKAGES.exec(url)?.[1] ?? null;
  else if (/node:_http_(server|common)/.test(url) && /^parserOn/.test(functionName)) owner = "Node's HTTP parser";
  owners.set(node.id, owner);
  return owner;
}

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const hits = new Map();
for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);

let busy = 0;
const byOwner = new Map();
const withinOwner = new Map();
for (const [id, count] of hits) {
  const leaf = byId.get(id);
  if (leaf.callFrame.functionName === '(idle)') continue;
  busy += count;
  let owner = null;
  for (let at = id; at !== undefined && owner === null; at = parentOf.get(at)) owner = ownerOf(byId.get(at));
  owner ??= 'other (Node: the HTTP lifecycle, timers, the start)';
  byOwner.set(owner, (byOwner.get(owner) ?? 0) + count);
  if (owner === within) {
    const { functionName, url, lineNumber } = leaf.callFrame;
    const name = `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
    withinOwner.set(name, (withinOwner.get(name) ?? 0) + count);
  }
}

const share = (count) => `${((100 * count) / busy).toFixed(1).padStart(5)} %`;
const us = (count) => (usPerRequest ? `${((Number(usPerRequest) * count) / busy).toFixed(0).padStart(5)} µs  ` : '');
const sorted = (map) => [...map].sort((a, b) => b[1] - a[1]);
const rows = sorted(within ? withinOwner : byOwner).slice(0, within ? 30 : undefined);
process.stdout.write([`${busy} busy samples`, ...rows.map(([owner, count]) => `${share(count)} ${us(count)}${owner}`)].join('\n') + '\n');
