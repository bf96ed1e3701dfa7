/*
 * The model and the checker of the soak test (test/operations/soak.e2e-spec.ts): pure logic over what the
 * clients sent and what the service answered, and over the rows left in the database.
 *
 * The contract (docs/api.md 5, 5.3) is written out here on its own rather than imported from src/,
 * so that the oracle does not share the code it judges.
 *
 * The core is a linearizability check per organization and name: every answer that docs/api.md
 * allows must be explained by some order of the operations, consistent with real time (an
 * operation takes effect at one instant between the moment its request left and the moment
 * its answer arrived), in which each operation, applied to the state left by the ones before
 * it, gives exactly the answer the client got. The state of one name is "absent" or the
 * webhook's URLs and signing secret. The search keeps every state (and set of operations
 * already placed) the answers so far allow, and places an operation at the latest when its
 * answer arrives (the "just in time" form of the Wing-Gong algorithm). At the end the rows in
 * the database must be one of the states the whole history allows.
 *
 * Answers that docs/api.md does not allow (500, 503, 429, a 400 for a valid body...) are violations
 * by themselves; for the search they become operations that may or may not have taken
 * effect. Requests that got no answer at all may take effect at any time after they left.
 */

/** Written out here, not imported from src/: the model is an oracle, independent of the code it judges. */
export const EVENT_FIELDS = [
  'transaction.created',
  'transaction.updated',
  'transaction.completed',
  'card.updated',
  'user.updated',
] as const;
export type EventField = (typeof EVENT_FIELDS)[number];

/** The groups of the JSON shape and their members, in the order answers list them. */
const GROUPS: readonly (readonly [string, readonly string[]])[] = [
  ['transaction', ['created', 'updated', 'completed']],
  ['card', ['updated']],
  ['user', ['updated']],
];

/** A webhook's URLs as stored: `url` and the per-event URLs that are set, each a WHATWG href. */
export interface Urls {
  readonly url: string;
  readonly events: Readonly<Partial<Record<EventField, string>>>;
}

export type JsonObject = Record<string, unknown>;

export type OperationKind = 'create' | 'legacy create' | 'patch' | 'delete' | 'legacy delete' | 'read' | 'list';

/** One request as the driver sent it (bodies in their JSON form). */
export type Request =
  | { readonly kind: 'create'; readonly name: string; readonly body: JsonObject }
  | { readonly kind: 'legacy create'; readonly name: string; readonly body: JsonObject }
  | { readonly kind: 'patch'; readonly name: string; readonly body: JsonObject }
  | { readonly kind: 'delete'; readonly name: string }
  | { readonly kind: 'legacy delete'; readonly name: string }
  | { readonly kind: 'read'; readonly name: string }
  | { readonly kind: 'list' };

/** One request and its answer, with the times (ms, one monotonic clock) that bound its effect. */
export interface Answer {
  readonly id: number;
  readonly organization: number;
  readonly instance: number;
  readonly request: Request;
  /** Taken just before the request left: the operation cannot take effect earlier. */
  readonly sent: number;
  /** Taken once the whole answer was in: the operation took effect before this, if at all. */
  readonly received: number;
  /** null: no answer at all (connection error, client timeout). */
  readonly status: number | null;
  /** The parsed JSON body, the text when it was not JSON, or the error when there was no answer. */
  readonly body: unknown;
}

/** The statuses docs/api.md 5.3 allows for these requests (valid bodies, far below the cap and the rate limits, DNS up). */
export const ALLOWED_STATUSES: Readonly<Record<OperationKind, readonly number[]>> = {
  create: [201, 409],
  'legacy create': [200],
  patch: [200, 404],
  delete: [200, 404],
  'legacy delete': [200],
  read: [200, 404],
  list: [200],
};

/** The exact body of the answers that do not depend on the state (docs/api.md 5.3, 7). */
const FIXED_BODIES: Partial<Record<OperationKind, Record<number, JsonObject>>> = {
  create: { 409: { code: 'name conflict' } },
  patch: { 404: { code: 'not found' } },
  delete: { 200: { code: 'ok' }, 404: { code: 'not found' } },
  'legacy delete': { 200: { code: 'ok' } },
  read: { 404: { code: 'not found' } },
};

const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** What the answer of a request tells about its effect. */
export function certaintyOf(answer: Answer): 'certain' | 'optional' | 'unbounded' {
  if (answer.status === null) return 'unbounded';
  return answerProblem(answer) === undefined ? 'certain' : 'optional';
}

/** Why an answer is outside docs/api.md regardless of the state, or undefined when it is not. */
function answerProblem({ request, status, body }: Answer): string | undefined {
  if (status === null) return `no answer (${String(body)})`;
  if (!ALLOWED_STATUSES[request.kind].includes(status)) return `status ${status} is not among ${ALLOWED_STATUSES[request.kind].join(', ')}`;
  if (request.kind === 'list' && (typeof body !== 'object' || body === null || Array.isArray(body)))
    return `body ${short(body)} is not an object`;
  const fixed = FIXED_BODIES[request.kind]?.[status];
  if (fixed !== undefined && !sameJson(body, fixed)) return `body ${short(body)} instead of ${JSON.stringify(fixed)}`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The JSON shape of docs/api.md 5 and JSON Merge Patch (RFC 7396) over it.

const href = (url: unknown): string => new URL(String(url)).href;

/** The URLs a create or legacy create-or-update body stores (a group given as {} stores nothing). */
export function draftUrls(body: JsonObject): Urls {
  const events: Partial<Record<EventField, string>> = {};
  for (const [group, members] of GROUPS) {
    const given = body[group] as Record<string, unknown> | undefined;
    for (const member of members) {
      if (given?.[member] !== undefined) events[`${group}.${member}` as EventField] = href(given[member]);
    }
  }
  return { url: href(body.url), events };
}

/** A merge patch applied to stored URLs: present members change, null clears a URL or a whole group. */
export function mergePatch(urls: Urls, patch: JsonObject): Urls {
  const events: Partial<Record<EventField, string>> = { ...urls.events };
  for (const [group, members] of GROUPS) {
    if (!(group in patch)) continue;
    const given = patch[group] as Record<string, unknown> | null;
    for (const member of members) {
      const field = `${group}.${member}` as EventField;
      if (given === null || given[member] === null) delete events[field];
      else if (given[member] !== undefined) events[field] = href(given[member]);
    }
  }
  return { url: patch.url === undefined ? urls.url : href(patch.url), events };
}

/** How docs/api.md 5 shows stored URLs: `url` plus only the groups and events that are set. */
export function bodyOf({ url, events }: Urls): JsonObject {
  const body: JsonObject = { url };
  for (const [group, members] of GROUPS) {
    const set: Record<string, string> = {};
    for (const member of members) {
      const value = events[`${group}.${member}` as EventField];
      if (value !== undefined) set[member] = value;
    }
    if (Object.keys(set).length > 0) body[group] = set;
  }
  return body;
}

/** Structural equality of JSON values; the order of object keys does not matter. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameJson((a as JsonObject)[k], (b as JsonObject)[k]));
}

const short = (value: unknown, max = 300): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}...` : text;
};

const withoutSecret = (body: unknown): unknown => {
  if (typeof body !== 'object' || body === null) return body;
  const { secret: _secret, ...rest } = body as JsonObject;
  return rest;
};

// ---------------------------------------------------------------------------------------------
// The state machine of one name in one organization.

/** What the model knows of a stored webhook; `secret` null while no answer has shown it. */
export interface Webhook {
  readonly urls: Urls;
  readonly secret: string | null;
}
/** null: the name does not exist. */
export type State = Webhook | null;

/** One answer as it bears on one name (a list answer bears on every name of its organization). */
interface Step {
  readonly index: number;
  readonly answer: Answer;
  readonly certainty: 'certain' | 'optional' | 'unbounded';
  /** For a list: the entry of this name in the answer, undefined when the list does not have it. */
  readonly listed?: unknown;
}

type Outcome = { readonly state: State } | { readonly refused: string };
const refused = (why: string): Outcome => ({ refused: why });

/**
 * What `step` leaves when it takes effect on `state`, or why it cannot have taken effect there
 * giving the answer it gave. Steps whose answer says nothing (certainty not "certain") are
 * applied for their effect alone, and always apply.
 */
function apply(state: State, step: Step): Outcome {
  const { request, status, body } = step.answer;
  const known = step.certainty === 'certain';
  switch (request.kind) {
    case 'create': {
      const urls = draftUrls(request.body);
      if (!known) return { state: state ?? { urls, secret: null } };
      if (status === 409) return state ? { state } : refused('409 name conflict while the name did not exist');
      if (state) return refused('201 created while the name existed');
      const expected = { name: request.name, ...bodyOf(urls) };
      const secret = (body as JsonObject | null)?.secret;
      if (typeof secret !== 'string' || !SECRET_PATTERN.test(secret)) return refused(`201 without a valid secret: ${short(body)}`);
      if (!sameJson(withoutSecret(body), expected))
        return refused(`201 answered ${short(withoutSecret(body))}, expected ${short(expected)}`);
      return { state: { urls, secret } };
    }
    case 'legacy create': {
      const urls = draftUrls(request.body);
      if (!known) return { state: { urls, secret: state?.secret ?? null } };
      const secret = (body as JsonObject | null)?.secret;
      if (typeof secret !== 'string' || !SECRET_PATTERN.test(secret)) return refused(`200 without a valid secret: ${short(body)}`);
      if (!sameJson(withoutSecret(body), bodyOf(urls)))
        return refused(`200 answered ${short(withoutSecret(body))}, expected ${short(bodyOf(urls))}`);
      // The secret is kept on update, never rotated (docs/api.md 5.3).
      if (state?.secret && state.secret !== secret)
        return refused(`the update answered secret ${secret.slice(0, 12)}..., the webhook had ${state.secret.slice(0, 12)}...`);
      return { state: { urls, secret: state?.secret ?? secret } };
    }
    case 'patch': {
      if (!known) return { state: state && { urls: mergePatch(state.urls, request.body), secret: state.secret } };
      if (status === 404) return state ? refused('404 while the webhook existed') : { state };
      if (!state) return refused('200 while the webhook did not exist');
      const urls = mergePatch(state.urls, request.body);
      const expected = { name: request.name, ...bodyOf(urls) };
      if (!sameJson(body, expected)) return refused(`200 answered ${short(body)}, expected ${short(expected)}`);
      return { state: { urls, secret: state.secret } };
    }
    case 'delete':
      if (!known) return { state: null };
      if (status === 404) return state ? refused('404 while the webhook existed') : { state };
      return state ? { state: null } : refused('200 while the webhook did not exist');
    case 'legacy delete':
      return { state: null };
    case 'read':
      if (!known) return { state };
      if (status === 404) return state ? refused('404 while the webhook existed') : { state };
      if (!state) return refused('200 while the webhook did not exist');
      return sameJson(body, bodyOf(state.urls)) ? { state } : refused(`answered ${short(body)}, stored ${short(bodyOf(state.urls))}`);
    case 'list':
      if (!known) return { state };
      if (step.listed === undefined) return state ? refused('the list lacks the webhook') : { state };
      if (!state) return refused(`the list has ${short(step.listed)} for a name that did not exist`);
      return sameJson(step.listed, bodyOf(state.urls))
        ? { state }
        : refused(`listed ${short(step.listed)}, stored ${short(bodyOf(state.urls))}`);
  }
}

const stateKey = (state: State): string =>
  state === null ? '-' : JSON.stringify([state.urls.url, EVENT_FIELDS.map((f) => state.urls.events[f] ?? null), state.secret]);

export const describeState = (state: State): string =>
  state === null ? 'absent' : `${short(bodyOf(state.urls), 200)}${state.secret ? ` secret ${state.secret.slice(0, 12)}...` : ''}`;

/** A possible present: the state, and which of the operations in flight have already taken effect. */
interface Config {
  readonly state: State;
  /** Indexes of steps in flight already placed, ascending. */
  readonly done: readonly number[];
}
const configKey = (c: Config): string => `${stateKey(c.state)}|${c.done.join(',')}`;
const withDone = (done: readonly number[], index: number): number[] => [...done, index].sort((a, b) => a - b);

/** Beyond this many configurations for one step the search gives up (reported, never passed). */
const SEARCH_LIMIT = 200_000;

class SearchLimit extends Error {}

/**
 * Every configuration reachable from `configs` by placing steps in flight, up to the moment
 * `target` is placed (then `target` leaves the set of steps in flight). `reasons` collects why
 * `target` could not be placed where it was tried.
 */
function place(configs: readonly Config[], inFlight: ReadonlyMap<number, Step>, target: number, reasons: Set<string>): Config[] {
  const seen = new Set(configs.map(configKey));
  const queue = [...configs];
  const placed = new Map<string, Config>();
  while (queue.length > 0) {
    const config = queue.pop()!;
    if (config.done.includes(target)) {
      const next = { state: config.state, done: config.done.filter((i) => i !== target) };
      placed.set(configKey(next), next);
      continue;
    }
    for (const [index, step] of inFlight) {
      if (config.done.includes(index)) continue;
      const outcome = apply(config.state, step);
      if ('refused' in outcome) {
        if (index === target) reasons.add(outcome.refused);
        continue;
      }
      const next = { state: outcome.state, done: withDone(config.done, index) };
      const key = configKey(next);
      if (seen.has(key)) continue;
      seen.add(key);
      queue.push(next);
      if (seen.size > SEARCH_LIMIT) throw new SearchLimit();
    }
  }
  return [...placed.values()];
}

/** Every state reachable from `configs` by placing any of the steps still in flight. */
function reachableStates(configs: readonly Config[], inFlight: ReadonlyMap<number, Step>): State[] {
  const seen = new Set(configs.map(configKey));
  const queue = [...configs];
  const states = new Map<string, State>();
  while (queue.length > 0) {
    const config = queue.pop()!;
    states.set(stateKey(config.state), config.state);
    for (const [index, step] of inFlight) {
      if (config.done.includes(index)) continue;
      const outcome = apply(config.state, step);
      if ('refused' in outcome) continue;
      const next = { state: outcome.state, done: withDone(config.done, index) };
      const key = configKey(next);
      if (seen.has(key)) continue;
      seen.add(key);
      queue.push(next);
      if (seen.size > SEARCH_LIMIT) throw new SearchLimit();
    }
  }
  return [...states.values()];
}

export const describeAnswer = (a: Answer): string => {
  const r = a.request;
  const target = r.kind === 'list' ? '' : ` ${r.name}`;
  const sent = 'body' in r ? ` ${short(r.body, 200)}` : '';
  return (
    `#${a.id} ${r.kind}${target}${sent} on instance ${a.instance} ` +
    `[${a.sent.toFixed(1)}..${a.received.toFixed(1)} ms] -> ${a.status ?? 'no answer'} ${short(a.body, 200)}`
  );
};

/**
 * Checks the history of one name in one organization (steps in any order); returns the
 * states the name may be in once everything has settled.
 */
function linearize(label: string, steps: readonly Step[], violations: string[]): State[] {
  // The request leaving (call) and the answer arriving (return). At equal times the call
  // comes first: treating two operations as overlapping only allows more orders.
  type Event = { time: number; call: boolean; step: Step };
  const events: Event[] = steps.flatMap((step) => {
    const call = { time: step.answer.sent, call: true, step };
    // Without an answer, the request may take effect at any time after it left.
    return step.certainty === 'unbounded' ? [call] : [call, { time: step.answer.received, call: false, step }];
  });
  events.sort((a, b) => a.time - b.time || Number(b.call) - Number(a.call));

  let configs: Config[] = [{ state: null, done: [] }];
  const inFlight = new Map<number, Step>();
  try {
    for (const { call, step } of events) {
      if (call) {
        inFlight.set(step.index, step);
        continue;
      }
      if (step.certainty === 'optional') {
        // An answer outside docs/api.md: the operation took effect before this answer, or never.
        const withIt = place(configs, inFlight, step.index, new Set());
        inFlight.delete(step.index);
        configs = dedupe([...configs.map((c) => ({ state: c.state, done: c.done.filter((i) => i !== step.index) })), ...withIt]);
        continue;
      }
      const reasons = new Set<string>();
      let next = place(configs, inFlight, step.index, reasons);
      if (next.length === 0) {
        const states = dedupe(configs).map((c) => describeState(c.state));
        const overlapping = [...inFlight.values()].filter((s) => s !== step).map((s) => describeAnswer(s.answer));
        violations.push(
          `${label}: no order of the operations explains ${describeAnswer(step.answer)}: ${[...reasons].join('; ')}. ` +
            `Possible states before: ${[...new Set(states)].slice(0, 4).join(' | ')}. ` +
            `In flight with it: ${overlapping.length === 0 ? 'nothing' : overlapping.slice(0, 6).join(' || ')}`,
        );
        // Go on as if the answer had said nothing, so that one violation does not hide or
        // cause the next ones.
        const lenient: Step = { ...step, certainty: 'optional' };
        inFlight.set(step.index, lenient);
        next = place(configs, inFlight, step.index, new Set());
      }
      inFlight.delete(step.index);
      configs = next;
    }
    return reachableStates(configs, inFlight);
  } catch (error) {
    if (!(error instanceof SearchLimit)) throw error;
    violations.push(`${label}: too many possible interleavings (over ${SEARCH_LIMIT}) to check this name; the history is not checked`);
    return [];
  }
}

const dedupe = (configs: readonly Config[]): Config[] => [...new Map(configs.map((c) => [configKey(c), c])).values()];

// ---------------------------------------------------------------------------------------------
// The database and the final listings.

export interface DatabaseSnapshot {
  readonly sources: readonly { readonly id: number; readonly organizationId: number }[];
  /** Every webhook row, with its URLs and its decrypted secret. */
  readonly webhooks: readonly {
    readonly id: number;
    readonly sourceId: number;
    readonly name: string;
    readonly urls: Urls;
    readonly secret: string;
  }[];
}

/** `GET /webhook` of one organization from one instance, once the load is over. */
export interface Listing {
  readonly instance: number;
  readonly organization: number;
  readonly status: number | null;
  readonly text: string;
}

/** The structural rules of docs/api.md 5 over the rows; returns the webhooks of each organization by name. */
function checkRows(
  db: DatabaseSnapshot,
  organizations: readonly number[],
  names: readonly string[],
  violations: string[],
): Map<number, Map<string, Webhook>> {
  const byOrganization = new Map<number, Map<string, Webhook>>(organizations.map((o) => [o, new Map()]));
  const sourceOrg = new Map(db.sources.map((s) => [s.id, s.organizationId]));
  for (const organization of new Set(db.sources.map((s) => s.organizationId))) {
    const count = db.sources.filter((s) => s.organizationId === organization).length;
    if (count > 1) violations.push(`database: organization ${organization} has ${count} webhook_sources rows`);
  }
  for (const source of db.sources) {
    if (!db.webhooks.some((w) => w.sourceId === source.id)) {
      violations.push(`database: webhook_sources row ${source.id} (organization ${source.organizationId}) has no webhook`);
    }
  }
  const seen = new Set<string>();
  for (const webhook of db.webhooks) {
    const organization = sourceOrg.get(webhook.sourceId);
    if (organization === undefined) {
      violations.push(`database: webhook row ${webhook.id} (${webhook.name}) has no webhook_sources row (source ${webhook.sourceId})`);
      continue;
    }
    const key = `${webhook.sourceId}/${webhook.name}`;
    if (seen.has(key)) violations.push(`database: more than one webhook named ${webhook.name} in organization ${organization}`);
    seen.add(key);
    const hooks = byOrganization.get(organization);
    if (!hooks || !names.includes(webhook.name)) {
      violations.push(`database: webhook ${webhook.name} in organization ${organization}, which no request ever tried to create`);
      continue;
    }
    hooks.set(webhook.name, { urls: webhook.urls, secret: webhook.secret });
  }
  return byOrganization;
}

/** `GET /webhook` at the end, from every instance, shows exactly the rows, keys sorted. */
function checkListings(listings: readonly Listing[], stored: Map<number, Map<string, Webhook>>, violations: string[]): void {
  for (const { instance, organization, status, text } of listings) {
    const where = `final GET /webhook of organization ${organization} on instance ${instance}`;
    const hooks = stored.get(organization) ?? new Map<string, Webhook>();
    const expected: JsonObject = Object.fromEntries([...hooks.keys()].sort().map((name) => [name, bodyOf(hooks.get(name)!.urls)]));
    let listed: unknown;
    try {
      listed = JSON.parse(text);
    } catch {
      listed = text;
    }
    if (status !== 200 || !sameJson(listed, expected)) {
      violations.push(`${where}: ${status ?? 'no answer'} ${short(text)}, the database holds ${short(expected)}`);
    } else if (JSON.stringify(Object.keys(listed as JsonObject)) !== JSON.stringify(Object.keys(expected))) {
      violations.push(`${where}: keys not sorted: ${Object.keys(listed as JsonObject).join(', ')}`);
    }
  }
}

export interface SoakInput {
  readonly organizations: readonly number[];
  readonly names: readonly string[];
  readonly answers: readonly Answer[];
  readonly database: DatabaseSnapshot;
  readonly listings: readonly Listing[];
}

/** Every violation of docs/api.md the run shows, as one line each; empty when there is none. */
export function checkSoak({ organizations, names, answers, database, listings }: SoakInput): string[] {
  const violations: string[] = [];

  // 1. Every answer is one docs/api.md allows for its request.
  for (const answer of answers) {
    const problem = answerProblem(answer);
    if (problem !== undefined) violations.push(`answer outside docs/api.md: ${problem}: ${describeAnswer(answer)}`);
  }

  // 2. The history of every name is explained by some order of the operations. A list
  //    answer is split into one read per name; an answer without a place in the model
  //    (a read outside docs/api.md, which tells nothing) is left out.
  const histories = new Map<string, Step[]>();
  const stepsOf = (organization: number, name: string): Step[] => {
    const key = `${organization}/${name}`;
    if (!histories.has(key)) histories.set(key, []);
    return histories.get(key)!;
  };
  let index = 0;
  for (const answer of answers) {
    const certainty = certaintyOf(answer);
    const { request } = answer;
    if (request.kind === 'list') {
      if (certainty !== 'certain') continue;
      const listed = answer.body as JsonObject;
      for (const name of Object.keys(listed)) {
        if (!names.includes(name))
          violations.push(
            `list of organization ${answer.organization} has ${name}, which no request ever tried to create: ${describeAnswer(answer)}`,
          );
      }
      for (const name of names) stepsOf(answer.organization, name).push({ index: index++, answer, certainty, listed: listed[name] });
    } else if (request.kind === 'read') {
      if (certainty === 'certain') stepsOf(answer.organization, request.name).push({ index: index++, answer, certainty });
    } else {
      stepsOf(answer.organization, request.name).push({ index: index++, answer, certainty });
    }
  }

  // 3. The rows obey docs/api.md 5 (source-row invariant, one webhook per name), and each name's
  //    row is one of the states its history allows, secret included.
  const stored = checkRows(database, organizations, names, violations);
  for (const organization of organizations) {
    for (const name of names) {
      const label = `organization ${organization}, name ${name}`;
      const finals = linearize(label, stepsOf(organization, name), violations);
      const row = stored.get(organization)?.get(name) ?? null;
      const allowed = finals.some((f) =>
        f === null || row === null
          ? f === row
          : stateKey({ ...f, secret: null }) === stateKey({ ...row, secret: null }) && (f.secret === null || f.secret === row.secret),
      );
      if (!allowed && finals.length > 0) {
        violations.push(
          `${label}: the database holds ${describeState(row)}, but the acknowledged answers allow only ` +
            `${finals.slice(0, 4).map(describeState).join(' | ')}`,
        );
      }
    }
  }

  // 4. Every instance lists exactly what the database holds.
  checkListings(listings, stored, violations);
  return violations;
}

/** The webhook_sources rows as one SELECT saw them while the load ran, each with its number of webhooks. */
export interface SourceSample {
  readonly at: number;
  readonly sources: readonly { readonly id: number; readonly organizationId: number; readonly webhooks: number }[];
}

/**
 * The source-row invariant in the middle of the run. One statement reads one consistent
 * snapshot, and a write changes webhooks and source rows in one transaction, so no sample
 * may show a source row without a webhook, nor two source rows for one organization. (The
 * final snapshot alone would miss a source row left behind by a delete if a later create
 * filled it again.)
 */
export function checkSamples(samples: readonly SourceSample[]): string[] {
  const seen = new Map<string, { first: number; count: number }>();
  const note = (problem: string, at: number): void => {
    const entry = seen.get(problem) ?? { first: at, count: 0 };
    entry.count++;
    seen.set(problem, entry);
  };
  for (const { at, sources } of samples) {
    for (const source of sources) {
      if (source.webhooks === 0) note(`webhook_sources row ${source.id} (organization ${source.organizationId}) has no webhook`, at);
    }
    for (const organization of new Set(sources.map((s) => s.organizationId))) {
      const rows = sources.filter((s) => s.organizationId === organization).length;
      if (rows > 1) note(`organization ${organization} has ${rows} webhook_sources rows`, at);
    }
  }
  return [...seen].map(
    ([problem, { first, count }]) =>
      `database during the load: ${problem} (first at ${first.toFixed(1)} ms, in ${count} of ${samples.length} samples)`,
  );
}

/** Answers per operation and status, for the report. */
export function statusCounts(answers: readonly Answer[]): Record<string, Record<string, number>> {
  const counts: Record<string, Record<string, number>> = {};
  for (const { request, status } of answers) {
    const row = (counts[request.kind] ??= {});
    const key = String(status ?? 'no answer');
    row[key] = (row[key] ?? 0) + 1;
  }
  return counts;
}
