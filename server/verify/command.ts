import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../boot/package-info.js';
import { redact } from './redact.js';
import { EXIT, exitCode, jsonReport, summaryLine, table } from './report.js';
import { CHECKED_OPERATIONS, DEFAULT_TIMEOUT_MS, VerifyStop, verifyTarget } from './run.js';

const MAX_TIMEOUT_S = 600;

export const VERIFY_USAGE = [
  'Usage: nodus-mock verify --base-url URL --api-key KEY [--json FILE] [--only OPS] [--timeout SECONDS]',
  '',
  "Checks a Nodus control plane against this mock's OpenAPI document, calling only operations",
  'that are free and change nothing (lists, gets, previews, validate). Exit 0: it matches;',
  '1: drift; 2: nothing could be checked, or a usage, connection or authentication problem;',
  '3: no drift, but some answers could not be checked (too large, too slow, unreadable).',
  'See docs/verify.md.',
  '',
  '  --base-url URL   the control plane, e.g. https://api.example.com (env NODUS_BASE_URL)',
  '  --api-key KEY    its API key (env NODUS_API_KEY); never printed',
  '  --json FILE      also write the report as JSON to FILE',
  `  --timeout SECONDS  the longest one answer may take (default ${DEFAULT_TIMEOUT_MS / 1000}, at most ${MAX_TIMEOUT_S})`,
  '  --only OPS       comma separated operationIds to check, of:',
  ...wrap(CHECKED_OPERATIONS.join(', '), 72).map((l) => `                   ${l}`),
  '  --help           print this text',
].join('\n');

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

class UsageError extends Error {}

interface Io {
  out(text: string): void;
  err(text: string): void;
}

function parse(argv: string[], env: NodeJS.ProcessEnv) {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: { 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, json: { type: 'string' }, only: { type: 'string' }, timeout: { type: 'string' }, help: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]);
  }
  if (values.help) return { help: true as const };
  const rawUrl = values['base-url'] ?? env.NODUS_BASE_URL;
  const apiKey = values['api-key'] ?? env.NODUS_API_KEY;
  if (!rawUrl) throw new UsageError('give --base-url (or NODUS_BASE_URL)');
  if (!apiKey) throw new UsageError('give --api-key (or NODUS_API_KEY)');
  let baseUrl: URL;
  try {
    baseUrl = new URL(rawUrl);
  } catch {
    throw new UsageError('--base-url is not a URL');
  }
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') throw new UsageError('--base-url must be http or https');
  let only: Set<string> | undefined;
  if (values.only !== undefined) {
    only = new Set(values.only.split(',').map((s) => s.trim()).filter(Boolean));
    const known = new Set<string>(CHECKED_OPERATIONS);
    const unknown = [...only].filter((id) => !known.has(id));
    if (unknown.length > 0) throw new UsageError(`--only names operations verify does not call: ${unknown.join(', ')}`);
    if (only.size === 0) throw new UsageError('--only names no operation');
  }
  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!/^\d+(\.\d+)?$/.test(values.timeout.trim()) || !(seconds > 0) || seconds > MAX_TIMEOUT_S) {
      throw new UsageError(`--timeout is a number of seconds above 0, at most ${MAX_TIMEOUT_S}`);
    }
    timeoutMs = Math.max(1, Math.round(seconds * 1000));
  }
  return { help: false as const, baseUrl, apiKey, json: values.json, only, timeoutMs };
}

/** `nodus-mock verify ...`: resolves with the exit code. */
export async function verifyCommand(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  let args;
  try {
    args = parse(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`nodus-mock verify: ${err.message} (see nodus-mock verify --help)\n`);
    return EXIT.stopped;
  }
  if (args.help) {
    io.out(`${VERIFY_USAGE}\n`);
    return EXIT.match;
  }
  const { baseUrl, apiKey, json, only, timeoutMs } = args;
  const document = JSON.parse(readFileSync(join(packageRoot(), 'openapi', 'openapi.json'), 'utf8'));
  let outcome;
  try {
    outcome = { report: await verifyTarget(document, { baseUrl, apiKey, only, timeoutMs }) };
  } catch (err) {
    if (!(err instanceof VerifyStop)) throw err;
    outcome = { reason: err.message };
  }
  const secrets = [apiKey, ...('report' in outcome ? outcome.report.secrets : [])];
  if (json !== undefined) {
    try {
      writeFileSync(json, redact(jsonReport(baseUrl, outcome), secrets));
    } catch (err) {
      io.err(`nodus-mock verify: cannot write --json ${json}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
      return EXIT.stopped;
    }
  }
  if (!('report' in outcome)) {
    io.err(redact(`nodus-mock verify: ${outcome.reason}\n`, secrets));
    return EXIT.stopped;
  }
  io.out(redact(table(outcome.report, baseUrl), secrets));
  const code = exitCode(outcome.report);
  if (code !== EXIT.match) io.err(redact(`nodus-mock verify: ${summaryLine(outcome.report)}\n`, secrets));
  return code;
}
