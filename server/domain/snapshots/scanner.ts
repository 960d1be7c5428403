/*
 * JSON read a piece at a time, as a snapshot's bytes arrive (docs/snapshots.md, Size): the tokens
 * of the levels the reader walks, and each row as its whole text, for JSON.parse. A token per value
 * (a tokenizer's usual answer) cost a restore more than everything else it did; a row's text is
 * found by one pass over its characters, strings skipped, and built by the engine's own parser.
 */

export const Token = {
  LEFT_BRACE: 0,
  RIGHT_BRACE: 1,
  LEFT_BRACKET: 2,
  RIGHT_BRACKET: 3,
  COLON: 4,
  COMMA: 5,
  STRING: 6,
  NUMBER: 7,
  LITERAL: 8,
} as const;
export type TokenKind = (typeof Token)[keyof typeof Token];
export type Primitive = string | number | boolean | null;

/** Text that is not JSON; the message says what and where. */
export class JsonSyntaxError extends Error {
  override name = 'JsonSyntaxError';
}

export interface ScanEvents {
  /** A token: punctuation comes with its character, literals and numbers with their value. */
  token(kind: TokenKind, value: Primitive): void;
  /** Whether the object that starts here is taken whole, as `object`, rather than token by token. */
  takesObject?(): boolean;
  /**
   * An object's text, from its `{` to the `}` that ends it, with the keys it writes (its colons);
   * or, when it holds an array or object (or a stray `]`), only up to that character, with
   * `flat` false: what follows is never read. `at` is where it starts.
   */
  object?(text: string, flat: boolean, keys: number, at: number): void;
}

const [TAB, LF, CR, SPACE, QUOTE, COMMA, MINUS, COLON, BACKSLASH] = [0x09, 0x0a, 0x0d, 0x20, 0x22, 0x2c, 0x2d, 0x3a, 0x5c];
const [OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [0x5b, 0x5d, 0x7b, 0x7d];
const PUNCTUATION = new Map<number, TokenKind>([
  [OPEN_OBJECT, Token.LEFT_BRACE], [CLOSE_OBJECT, Token.RIGHT_BRACE], [OPEN_ARRAY, Token.LEFT_BRACKET],
  [CLOSE_ARRAY, Token.RIGHT_BRACKET], [COLON, Token.COLON], [COMMA, Token.COMMA],
]);
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const LITERALS = new Map<string, Primitive>([['true', true], ['false', false], ['null', null]]);

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isNumberChar = (c: number) => isDigit(c) || c === MINUS || c === 0x2b || c === 0x2e || c === 0x45 || c === 0x65;
const isLetter = (c: number) => c >= 0x61 && c <= 0x7a;

/** What the scanner is in the middle of when a piece of text ends. */
const Mode = { Between: 0, String: 1, Number: 2, Literal: 3, Object: 4 } as const;

/**
 * A scanner fed text a piece at a time (`write`), then told it has all of it (`end`): tokens and
 * objects are reported as they complete, whatever piece boundaries they straddle, each piece's
 * characters looked at once. Throws a JsonSyntaxError at text that no JSON holds; the grammar
 * above single tokens (what may follow what) is the caller's. `offset` is where the text starts,
 * for the messages.
 */
export function jsonScanner(events: ScanEvents, offset = 0) {
  let mode: (typeof Mode)[keyof typeof Mode] = Mode.Between;
  /** The pieces of the token (or object) under way that earlier writes ended inside. */
  let parts: string[] = [];
  /** Where the token under way starts, for the messages. */
  let at = 0;
  /** A string's last character was a backslash (in an object: a string inside it). */
  let escaped = false;
  let inString = false;
  let keys = 0;

  // The two loops over most of the characters: a string's end is found by indexOf, which outran a
  // loop over its characters by twice; their state is written back when a piece of text ends.
  /** Where the string under way ends (its closing quote), or `n`: the end of the piece. */
  const stringEnd = (text: string, i: number, n: number) => {
    if (escaped) {
      if (i === n) return n;
      escaped = false;
      i++;
    }
    for (;;) {
      const quote = text.indexOf('"', i);
      const end = quote < 0 ? n : quote;
      let run = end;
      while (run > i && text.charCodeAt(run - 1) === BACKSLASH) run--;
      // An odd run of backslashes escapes the quote (or, at the piece's end, the next one's first character).
      if (((end - run) & 1) === 0) return end;
      if (quote < 0) {
        escaped = true;
        return n;
      }
      i = quote + 1;
    }
  };
  /** Where the object under way ends (its `}`, or the first bracket inside it), or `n`. */
  const objectEnd = (text: string, i: number, n: number) => {
    let colons = keys;
    if (inString) {
      i = stringEnd(text, i, n);
      if (i === n) return n;
      inString = false;
      i++;
    }
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        i = stringEnd(text, i + 1, n);
        if (i === n) {
          inString = true;
          break;
        }
      } else if (c === COLON) colons++;
      else if (c === CLOSE_OBJECT || c === OPEN_OBJECT || c === OPEN_ARRAY || c === CLOSE_ARRAY) break;
    }
    keys = colons;
    return i;
  };
  const fail = (why: string, where: number) => new JsonSyntaxError(`${why} at character ${where}`);
  /** The whole text of the token that ends at `end` of this piece. */
  const take = (text: string, start: number, end: number) => {
    if (parts.length === 0) return text.slice(start, end);
    parts.push(text.slice(start, end));
    const whole = parts.join('');
    parts = [];
    return whole;
  };
  const word = (text: string) => {
    if (mode === Mode.Number) {
      if (!NUMBER.test(text)) throw fail(`${JSON.stringify(text)} is not a number`, at);
      events.token(Token.NUMBER, Number(text));
    } else {
      if (!LITERALS.has(text)) throw fail(`unexpected ${JSON.stringify(text)}`, at);
      events.token(Token.LITERAL, LITERALS.get(text)!);
    }
    mode = Mode.Between;
  };

  return {
    write(text: string): void {
      const n = text.length;
      let i = 0;
      let start = 0;
      while (i < n) {
        if (mode === Mode.Between) {
          const c = text.charCodeAt(i);
          if (c === SPACE || c === LF || c === CR || c === TAB) {
            i++;
            continue;
          }
          start = i;
          at = offset + i;
          if (c === QUOTE) {
            mode = Mode.String;
            escaped = false;
            i++;
          } else if (c === OPEN_OBJECT && events.takesObject?.()) {
            mode = Mode.Object;
            inString = false;
            escaped = false;
            keys = 0;
            i++;
          } else if (PUNCTUATION.has(c)) {
            i++;
            events.token(PUNCTUATION.get(c)!, String.fromCharCode(c));
          } else if (c === MINUS || isDigit(c)) {
            mode = Mode.Number;
          } else if (isLetter(c)) {
            mode = Mode.Literal;
          } else {
            throw fail(`unexpected character ${JSON.stringify(text[i])}`, at);
          }
        } else if (mode === Mode.String) {
          i = stringEnd(text, i, n);
          if (i === n) break;
          const token = take(text, start, ++i);
          mode = Mode.Between;
          let value: string;
          try {
            value = JSON.parse(token) as string;
          } catch {
            throw fail('a string with a bad escape or control character', at);
          }
          events.token(Token.STRING, value);
        } else if (mode === Mode.Number || mode === Mode.Literal) {
          const member = mode === Mode.Number ? isNumberChar : isLetter;
          while (i < n && member(text.charCodeAt(i))) i++;
          if (i === n) break;
          word(take(text, start, i));
        } else {
          i = objectEnd(text, i, n);
          if (i === n) break;
          const flat = text.charCodeAt(i) === CLOSE_OBJECT;
          const object = take(text, start, ++i);
          mode = Mode.Between;
          events.object!(object, flat, keys, at);
        }
      }
      if (mode !== Mode.Between) parts.push(text.slice(start));
      offset += n;
    },
    end(): void {
      if (mode === Mode.Number || mode === Mode.Literal) word(take('', 0, 0));
      else if (mode !== Mode.Between) throw fail('it ends before the document does: inside the value that starts', at);
    },
  };
}
