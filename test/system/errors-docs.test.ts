// docs/errors.md lists every error code the server can answer. The codes are read from the source,
// where they are written, so a new code, or one that is gone, fails here until the page says so.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import t from '../helpers/tap.js';
import { packageRoot } from '../../server/boot/package-info.js';

const root = packageRoot();
const read = (path: string) => readFileSync(join(root, path), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const SHIPPED = new Map(['server', 'routes', 'store', 'openapi'].flatMap(sources).concat('index.ts').map((path) => [path, read(path)]));
/** A code as the source writes it: a snake_case string literal. */
const CODE = `'(?<code>[a-z0-9_]+)'`;

/** A code with the status it goes with, where the source says so next to it. */
type Emitted = { code: string; status?: number; at: string };

/** The code a table entry or object literal names, for every match of `pattern` in `text`. */
const each = (text: string, pattern: RegExp, at: string, status?: number): Emitted[] =>
  [...text.matchAll(pattern)].map((m) => ({ code: m.groups!.code, status: m.groups!.status ? Number(m.groups!.status) : status, at }));

/**
 * `new ApiError(status, code, ...)` whose code is not one literal takes it from somewhere: each file
 * with such a call is listed here with where its codes come from.
 */
const DYNAMIC: Record<string, (source: string, at: string) => Emitted[]> = {
  // badRequest(code, ...) and conflict(code, ...): their callers name the code.
  'server/domain/errors.ts': () =>
    [...SHIPPED].flatMap(([path, source]) => [
      ...each(source, new RegExp(`\\bbadRequest\\(\\s*${CODE}`, 'g'), path, 400),
      ...each(source, new RegExp(`\\bconflict\\(\\s*${CODE}`, 'g'), path, 409),
    ]),
  // Fastify's own errors by its code, and validation failures by the route's validationCodes.
  'server/http/error-handler.ts': (source, at) => [
    ...each(source, new RegExp(`\\[(?<status>\\d{3}), ${CODE}\\]`, 'g'), at),
    ...[...SHIPPED].flatMap(([path, routeSource]) =>
      [...routeSource.matchAll(/validationCodes: (\{[^}]*\}|[A-Z_]+)/g)].flatMap(([, value]) => {
        const table = value.startsWith('{') ? value : new RegExp(`const ${value} = (\\{[^}]*\\})`).exec(routeSource)![1];
        return each(table, new RegExp(`: ${CODE}`, 'g'), path, 400);
      }),
    ),
  ],
  // The freeze and resume refusals, by the simulator's reason.
  'server/domain/workloads/freeze.ts': (source, at) =>
    each(/const REFUSALS[^=]*= \{([\s\S]*?)\n\};/.exec(source)![1], new RegExp(`\\[${CODE},`, 'g'), at, 409),
  // The router's refusals: `status === 414 ? 'uri_too_long' : 'invalid_request'`, both literals already read.
  'server/app.ts': () => [],
  // A domain refusal keeps its code, which the DomainError calls above name.
  'server/http/api-error.ts': () => [],
  // A fault rule answers the code its rule names: the test's, not the server's.
  'server/http/api-hooks.ts': () => [],
};

/** The status each kind of domain refusal is answered with, from the HTTP layer's table. */
const STATUS_OF = Object.fromEntries(
  [.../const STATUS_OF[^=]*= \{([\s\S]*?)\};/.exec(SHIPPED.get('server/http/api-error.ts')!)![1].matchAll(/(\w+): (\d{3})/g)].map(([, kind, status]) => [kind, status]),
);

function emitted(t: Test): Emitted[] {
  const found: Emitted[] = [];
  const dynamicFiles = new Set<string>();
  for (const [path, source] of SHIPPED) {
    const errors = [
      ...[...source.matchAll(/new ApiError\(\s*([^,]+),\s*([^,]+),/g)].map(([, status, code]) => [status, code]),
      ...[...source.matchAll(/new DomainError\(\s*'(\w+)',\s*([^,]+),/g)].map(([, kind, code]) => [STATUS_OF[kind] ?? kind, code]),
    ];
    for (const [status, code] of errors) {
      const literal = new RegExp(`^${CODE}$`).exec(code.trim());
      if (literal) found.push({ code: literal.groups!.code, status: /^\d{3}$/.test(status.trim()) ? Number(status) : undefined, at: path });
      else {
        // `cond ? 'a' : 'b'`, `code ?? 'a'`: the literals it can be, plus whatever DYNAMIC explains.
        found.push(...each(code, new RegExp(CODE, 'g'), path));
        dynamicFiles.add(path);
      }
    }
    // Envelopes written as objects: the readiness probe, the HTTP parser's refusals.
    found.push(...each(source, new RegExp(`(?:code\\((?<status>\\d{3})\\)\\.send\\()?\\{\\s*error: ${CODE},\\s*message:`, 'g'), path));
  }
  t.same([...dynamicFiles].filter((path) => !(path in DYNAMIC)).sort(), [], 'every computed code is explained: teach DYNAMIC where a new one comes from');
  for (const [path, explain] of Object.entries(DYNAMIC)) {
    t.ok(dynamicFiles.has(path), `${path} still computes a code (else drop it from DYNAMIC)`);
    found.push(...explain(SHIPPED.get(path)!, path));
  }
  return found;
}

const rows = [...read('docs/errors.md').matchAll(/^\| (\d{3}) \| `([a-z0-9_]+)` \|/gm)].map((m) => ({ status: Number(m[1]), code: m[2] }));

t.test('docs/errors.md lists exactly the codes the server can answer, each with its status', async (t) => {
  const codes = emitted(t);
  t.ok(codes.length > 60, `${codes.length} places in the source`);
  const fromSource = [...new Set(codes.map((c) => c.code))].sort();
  const documented = [...new Set(rows.map((r) => r.code))].sort();
  t.same(fromSource.filter((code) => !documented.includes(code)), [], 'every code the server answers has its row');
  t.same(documented.filter((code) => !fromSource.includes(code)), [], 'every row is a code the server answers');
  for (const { code, status, at } of codes) {
    if (status === undefined) continue;
    t.ok(rows.some((r) => r.code === code && r.status === status), `${status} ${code} (${at}) has its row`);
  }
});
