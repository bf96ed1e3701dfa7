/*
 * docs/api.md 4: how much structure a JSON body may have, judged on its bytes before JSON.parse
 * sees them. What a body costs the event loop to parse follows its objects and members more than
 * its bytes (1 MiB of `[{},{},…]` takes JSON.parse ~100 ms, one object of 110 000 members ~70 ms,
 * 1 MiB of numbers ~20 ms and what they leave to collect, 1 MiB of text ~3 ms), and a parse cannot be interrupted: past these bounds a body is refused
 * unparsed, 400 `bad request`. No body of 16 KiB can reach them; an event's or a batch's can.
 */

/** Objects and arrays in one body, together. */
export const MAX_JSON_CONTAINERS = 20_000;
/** Members of objects in one body, together. */
export const MAX_JSON_MEMBERS = 25_000;
/** Members of any one object (a large object costs V8 more per member than a small one). */
export const MAX_JSON_OBJECT_MEMBERS = 5_000;
/** Values in one body's arrays and objects, together (1 MiB of `[0,0,…]` holds 524 288: ~40 ms to parse and collect). */
export const MAX_JSON_VALUES = 100_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const VALUES_RULE = `must hold at most ${MAX_JSON_VALUES} values in its arrays and objects`;
/** What an open array counts on the stack of open containers (an object counts its members there). */
const ARRAY = -1;

/**
 * What breaks the bounds in `body` (undefined: nothing), counting outside strings in one pass
 * that stops at the first bound passed. Malformed JSON is counted as far as it goes and left to
 * the parser to refuse.
 */
export function jsonStructureProblem(body: Uint8Array): string | undefined {
  let containers = 0;
  let members = 0;
  /** Commas outside strings, and containers: at least the values the arrays and objects hold. */
  let values = 0;
  /** Per open container: an object's members so far, or ARRAY. */
  const open: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (byte === QUOTE) i = closingQuote(body, i);
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++containers > MAX_JSON_CONTAINERS) return `must hold at most ${MAX_JSON_CONTAINERS} objects and arrays`;
      if (++values > MAX_JSON_VALUES) return VALUES_RULE;
      open.push(byte === OPEN_OBJECT ? 0 : ARRAY);
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) open.pop();
    else if (byte === COMMA) {
      if (++values > MAX_JSON_VALUES) return VALUES_RULE;
    } else if (byte === COLON) {
      if (++members > MAX_JSON_MEMBERS) return `must hold at most ${MAX_JSON_MEMBERS} members of objects`;
      const innermost = open.length - 1;
      if (innermost >= 0 && open[innermost] !== ARRAY && ++open[innermost] > MAX_JSON_OBJECT_MEMBERS) {
        return `must have at most ${MAX_JSON_OBJECT_MEMBERS} members in any one object`;
      }
    }
  }
  return undefined;
}

/** The index of the quote that closes the string opened at `start` (the body's length when none does). */
function closingQuote(body: Uint8Array, start: number): number {
  let at = start;
  for (;;) {
    at = body.indexOf(QUOTE, at + 1);
    if (at === -1) return body.length;
    let backslashes = 0;
    while (body[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}
