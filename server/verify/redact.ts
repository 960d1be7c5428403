/**
 * The one place secrets leave verify's output. A target controls strings that reach the report
 * (field names as JSON pointers, its content type, lowercased), and a hostile one can echo the key
 * in any spelling that still gives it away; each of these spellings is matched.
 */

export const REDACTED = '[redacted]';

const regexEscape = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** A `%`, itself percent-encoded any number of times (`%25`, `%2525`). */
const PERCENT = '%(?:25)*';
/** The characters that start an escape, as themselves or percent-encoded. */
const TILDE = `(?:~|${PERCENT}7e)`;
const BACKSLASH = `(?:\\\\|${PERCENT}5c)`;

/**
 * One character in every way an echo can spell it: itself in any letter case (the regex is
 * case-insensitive), percent-encoded byte by byte (also where no encoding is needed, hex in either
 * case), `+` for a space, JSON-pointer escaped (`~0`, `~1`, escaped again when a pointer is built
 * of an escaped name), and JSON-string escaped (`\"`, `\\`, as the JSON report writes them).
 */
function character(ch: string): string {
  const forms = [regexEscape(ch), [...Buffer.from(ch, 'utf8')].map((b) => `${PERCENT}${b.toString(16).padStart(2, '0')}`).join('')];
  if (ch === ' ') forms.push('\\+');
  if (ch === '~') forms.push(`${TILDE}0+`);
  if (ch === '/') forms.push(`${TILDE}0*1`);
  if (ch === '"' || ch === '\\') forms.push(`${BACKSLASH}+${regexEscape(ch)}`);
  return `(?:${forms.join('|')})`;
}

const spelled = (text: string) => [...text].map(character).join('');

/**
 * Base64 text as it can reach the report: its three symbols escaped or encoded, letters and digits
 * as they are. Spelling each of those too would make the regex slow to build (milliseconds a secret)
 * for nothing: encoding a letter of base64 text is not something an echo does.
 */
const base64Spelled = (text: string) => [...text].map((ch) => (/[\w]/.test(ch) ? ch : character(ch))).join('');

const BASE64_CORE_MIN = 8;

/**
 * The base64 forms of a secret: of the secret alone and of `secret:` (an HTTP Basic header), in
 * the standard and the URL alphabet, and the characters that spell the secret whatever surrounds
 * it inside a longer base64 text, at each of the three byte alignments it can start at.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const whole = [bytes, Buffer.from(`${secret}:`, 'utf8')].map((b) => b.toString('base64'));
  const cores: string[] = [];
  for (const shift of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    // A character encodes six bits: skip those holding a bit of the filler before, and stop
    // before the one holding a bit of whatever follows.
    const core = encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
    if (core.length >= BASE64_CORE_MIN) cores.push(core);
  }
  const standard = [...whole, ...cores];
  const url = standard.map((s) => s.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, ''));
  return [...new Set([...standard, ...url])];
}

/** A regex that matches `secret` in every form above; longer forms first, so none leaves a tail. */
function secretPattern(secret: string): RegExp {
  const forms = [[secret, spelled(secret)], ...base64Forms(secret).map((b) => [b, base64Spelled(b)])];
  return new RegExp(forms.sort(([a], [b]) => b.length - a.length).map(([, pattern]) => pattern).join('|'), 'gi');
}

/** `text` with every secret, in every spelling a target can echo it in, replaced by `[redacted]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...new Set(secrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length)) {
    out = out.replace(secretPattern(secret), REDACTED);
  }
  return out;
}
