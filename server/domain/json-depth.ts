/** How deep arrays and objects may nest in JSON the server reads from a client or a file. */
export const MAX_JSON_DEPTH = 64;

export const TOO_DEEP = `nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects, this server's limit`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const [OPEN_ARRAY, OPEN_OBJECT, CLOSE_ARRAY, CLOSE_OBJECT] = [0x5b, 0x7b, 0x5d, 0x7d];

/**
 * Whether valid JSON text nests deeper than MAX_JSON_DEPTH. JSON.parse itself takes any depth,
 * but every walk of the value it builds (the duplicate-key check, canonical hashing,
 * JSON.stringify of an answer) recurses once per level and overflows the stack a few thousand
 * levels down: a 500 for what a client sent. One pass over the characters, strings skipped,
 * and none at all for a text too short to nest that deep.
 */
export function nestsTooDeep(text: string): boolean {
  if (text.length <= MAX_JSON_DEPTH) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}
