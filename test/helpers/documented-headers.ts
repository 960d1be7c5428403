import { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * Checks an answer's headers against the document that serves it: every header it carries is one
 * its operation declares for that status, with a value the declared schema accepts, and none the
 * document marks required is missing. Transport headers and the request log's X-Request-Id,
 * which every answer carries, are left out.
 */

type Json = Record<string, any>;

const EVERY_ANSWER = new Set(['connection', 'content-length', 'content-type', 'date', 'keep-alive', 'transfer-encoding', 'x-request-id']);

const ajv = new Ajv2020({ strict: false });

export function headerProblems(doc: Json, method: string, template: string, res: { status: number; headers: Headers }): string[] {
  const where = `${method} ${template} ${res.status}`;
  const responses = doc.paths[template]?.[method.toLowerCase()]?.responses;
  if (!responses) return [`${where}: not in the document`];
  const declared = new Map(Object.entries<Json>((responses[res.status] ?? responses.default)?.headers ?? {}).map(([name, header]) => [name.toLowerCase(), { name, header }]));
  const problems: string[] = [];
  for (const [name, value] of res.headers) {
    if (EVERY_ANSWER.has(name)) continue;
    const entry = declared.get(name);
    if (!entry) {
      problems.push(`${where}: sends ${name}, which the document does not declare`);
      continue;
    }
    const validate = ajv.compile(entry.header.schema ?? {});
    if (!validate(value)) problems.push(`${where}: ${entry.name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`);
  }
  for (const [name, { header }] of declared) if (header.required && !res.headers.has(name)) problems.push(`${where}: ${name} is required and not sent`);
  return problems;
}
