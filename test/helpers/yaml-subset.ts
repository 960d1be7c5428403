/**
 * Reads the small YAML subset docker-compose.yml is written in, so the compose check needs no YAML
 * dependency: block mappings, block sequences of scalars, plain, single- and double-quoted
 * scalars, JSON-style flow sequences and comments. Anything else (anchors, block scalars, flow
 * mappings, mappings inside sequences, tabs, repeated keys) throws, naming the line, so a compose
 * file that outgrows the subset fails the test loudly instead of being misread.
 */
export type YamlValue = string | null | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  no: number;
  indent: number;
  text: string;
}

class YamlSubsetError extends Error {
  constructor(line: Line | undefined, message: string) {
    super(line ? `line ${line.no}: ${message}` : message);
  }
}

/** Drops a comment: `#` at the start or after whitespace, outside quotes. */
function stripComment(raw: string): string {
  let quote: string | undefined;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (quote) {
      if (quote === '"' && c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(raw[i - 1]))) {
      return raw.slice(0, i);
    }
  }
  return raw;
}

function scalar(text: string, line: Line): YamlValue {
  if (text === '' || text === '~' || text === 'null') return null;
  const first = text[0];
  try {
    if (first === '"') return JSON.parse(text);
    if (first === '[') {
      const items = JSON.parse(text);
      if (items.some((item: unknown) => typeof item !== 'string')) throw new Error('not a list of strings');
      return items;
    }
  } catch (err) {
    throw new YamlSubsetError(line, `only JSON-compatible quoted strings and flow lists are supported (${(err as Error).message})`);
  }
  if (first === "'") {
    if (!/^'(?:[^']|'')*'$/.test(text)) throw new YamlSubsetError(line, 'unterminated single-quoted string');
    return text.slice(1, -1).replaceAll("''", "'");
  }
  if ('{&*!|>%@`'.includes(first)) throw new YamlSubsetError(line, `"${first}" is outside the supported subset`);
  return text;
}

export function parseYamlSubset(source: string): YamlValue {
  const lines: Line[] = [];
  source.split('\n').forEach((raw, i) => {
    const text = stripComment(raw).trimEnd();
    if (text.trim() === '') return;
    const line = { no: i + 1, indent: text.length - text.trimStart().length, text: text.trimStart() };
    if (/^ *\t/.test(raw)) throw new YamlSubsetError(line, 'tab indentation');
    if (line.text === '---' || line.text === '...') throw new YamlSubsetError(line, 'document markers are outside the supported subset');
    lines.push(line);
  });
  let pos = 0;

  const isItem = (line: Line) => line.text === '-' || line.text.startsWith('- ');

  function block(indent: number): YamlValue {
    const head = lines[pos];
    if (isItem(head)) {
      const list: YamlValue[] = [];
      while (pos < lines.length && lines[pos].indent === indent && isItem(lines[pos])) {
        const line = lines[pos++];
        const text = line.text.slice(1).trim();
        if (/^[^'"[\s][^:]*:(\s|$)/.test(text)) throw new YamlSubsetError(line, 'mappings inside a list are outside the supported subset');
        list.push(scalar(text, line));
      }
      return list;
    }
    const map: { [key: string]: YamlValue } = {};
    while (pos < lines.length && lines[pos].indent === indent) {
      const line = lines[pos++];
      const m = /^([A-Za-z0-9_.-]+):(?:\s+(.*))?$/.exec(line.text);
      if (!m) throw new YamlSubsetError(line, `expected "key: value", got "${line.text}"`);
      const [, key, rest = ''] = m;
      if (Object.hasOwn(map, key)) throw new YamlSubsetError(line, `repeated key "${key}"`);
      const next = lines[pos];
      // A list may sit at its key's indentation (`ports:` then `- ...`), a mapping must be deeper.
      const nested = rest === '' && next && (next.indent > indent || (next.indent === indent && isItem(next)));
      map[key] = nested ? block(next.indent) : scalar(rest, line);
    }
    return map;
  }

  if (lines.length === 0) return null;
  const value = block(lines[0].indent);
  if (pos < lines.length) throw new YamlSubsetError(lines[pos], 'unexpected indentation');
  return value;
}
