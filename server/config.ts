import { parseArgs } from 'node:util';
import { z } from 'zod';
import { clockMode } from '../openapi/primitives.js';

/** A configured API key; `tenant` is set when the operator named one (`key=tenant`). */
interface KeyEntry {
  key: string;
  tenant?: string;
}

export const API_KEY_PATTERN = /^[\x21-\x7e]{1,256}$/;
const TENANT_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const OPEN_MODE_KEY_PREFIX = 'nk_test_';

function parseKeyList(raw: string, ctx: z.RefinementCtx): KeyEntry[] {
  const entries: KeyEntry[] = [];
  for (const item of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = item.indexOf('=');
    const key = eq === -1 ? item : item.slice(0, eq);
    const tenant = eq === -1 ? undefined : item.slice(eq + 1);
    if (!API_KEY_PATTERN.test(key)) {
      ctx.addIssue({ code: 'custom', message: 'a key must be printable ASCII without spaces' });
      return z.NEVER;
    }
    if (tenant !== undefined && !TENANT_NAME_PATTERN.test(tenant)) {
      ctx.addIssue({ code: 'custom', message: `tenant name "${tenant}" must match ${TENANT_NAME_PATTERN}` });
      return z.NEVER;
    }
    entries.push(tenant === undefined ? { key } : { key, tenant });
  }
  if (entries.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'give at least one key' });
    return z.NEVER;
  }
  return entries;
}


/** The host list's word for every loopback address: localhost, 127.0.0.0/8 and ::1. */
export const LOOPBACK_HOSTS = 'loopback';
const HOST_ENTRY = /^(\*|[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?|[0-9a-f:.]{2,45})$/;

/** `loopback,receiver.test,[::1]` → lower-case names and addresses, brackets of IPv6 removed. */
function parseHostList(raw: string, ctx: z.RefinementCtx): string[] {
  const hosts: string[] = [];
  for (const item of raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
    const host = item.startsWith('[') && item.endsWith(']') ? item.slice(1, -1) : item;
    if (!HOST_ENTRY.test(host)) {
      ctx.addIssue({ code: 'custom', message: `"${item}" is not a host name, an IP address, ${LOOPBACK_HOSTS} or *` });
      return z.NEVER;
    }
    hosts.push(host);
  }
  return hosts;
}

/**
 * One setting: its CLI flag, environment variable and default (as the flag would give it), the
 * line `--help` prints, and the schema that reads it. `unset` says what no value means, for a
 * setting without a default; `more` is what docs/configuration.md adds after `help` (details, and
 * links: to docs/ pages by their path in the repository, to its own sections by `#`); `api` is
 * where the Node API (index.ts) differs from the CLI.
 */
export interface OptionSpec {
  flag: string;
  env: string;
  default: string | undefined;
  unset?: string;
  help: string;
  more?: string;
  api?: { default?: string; unset?: string };
  schema: z.ZodType;
}

/**
 * Every setting, in one table: `--help` (HELP_TEXT), the table of docs/configuration.md
 * (scripts/docs-config.ts), the Node API's option type and its typings (index.ts,
 * scripts/emit-types.mjs) and the compose check all come from here.
 */
export const OPTIONS = {
  host: {
    flag: 'host', env: 'HOST', default: '127.0.0.1',
    help: 'interface to listen on',
    schema: z.string().min(1),
  },
  port: {
    flag: 'port', env: 'PORT', default: '8080',
    help: 'TCP port; `0` picks a free one and prints it',
    api: { default: '0' },
    schema: z.coerce.number().int().min(0).max(65535),
  },
  db: {
    flag: 'db', env: 'NODUS_MOCK_DB', default: './data/nodus-mock.db',
    help: 'SQLite file (parent folder created) or `:memory:`',
    more: '; see [The database file](#the-database-file)',
    api: { unset: 'a file in a temporary folder that `close()` removes' },
    schema: z.string().min(1),
  },
  keys: {
    flag: 'keys', env: 'NODUS_MOCK_API_KEYS', default: undefined, unset: 'open mode',
    help: 'strict mode: only these keys, comma separated, each `key` or `key=tenant`',
    more: '; see [Keys and tenants](#keys-and-tenants)',
    schema: z.string().transform(parseKeyList).optional(),
  },
  clock: {
    flag: 'clock', env: 'NODUS_MOCK_CLOCK', default: 'realtime',
    help: 'default tenant clock: `realtime` or `manual`',
    schema: clockMode,
  },
  timeScale: {
    flag: 'time-scale', env: 'NODUS_MOCK_TIME_SCALE', default: '60',
    help: 'virtual seconds per wall second in realtime mode',
    schema: z.coerce.number().positive().max(1_000_000),
  },
  logLevel: {
    flag: 'log-level', env: 'LOG_LEVEL', default: 'info',
    help: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
    api: { default: 'silent' },
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  },
  logFormat: {
    flag: 'log-format', env: 'NODUS_MOCK_LOG_FORMAT', default: 'auto',
    help: '`auto` (readable lines when stdout is a terminal, JSON lines otherwise), `json` or `pretty`',
    more: '; see [Logs and request ids](#logs-and-request-ids)',
    schema: z.enum(['auto', 'json', 'pretty']),
  },
  catalog: {
    flag: 'catalog', env: 'NODUS_MOCK_CATALOG', default: undefined, unset: 'built in',
    help: 'JSON catalog file; its `recipes` and/or `environments` replace the built-in ones (see catalog/)',
    more: '; the format: [the catalog files](docs/control-api.md#the-catalog-files)',
    schema: z.string().min(1).optional(),
  },
  idempotencyTtl: {
    flag: 'idempotency-ttl', env: 'NODUS_MOCK_IDEMPOTENCY_TTL', default: '86400',
    help: 'virtual seconds an `Idempotency-Key` is remembered',
    schema: z.coerce.number().int().positive().max(365 * 24 * 3600),
  },
  maxEventsPerWorkload: {
    flag: 'max-events-per-workload', env: 'NODUS_MOCK_MAX_EVENTS_PER_WORKLOAD', default: '100000',
    help: 'RL events stored per workload; later ones count in `dropped_events` and set `truncated`',
    schema: z.coerce.number().int().positive().max(100_000_000),
  },
  maxEventBytesPerWorkload: {
    flag: 'max-event-bytes-per-workload', env: 'NODUS_MOCK_MAX_EVENT_BYTES_PER_WORKLOAD', default: '67108864',
    help: 'encoded RL event bytes stored per workload',
    schema: z.coerce.number().int().positive().max(2 ** 40),
  },
  journalSize: {
    flag: 'journal-size', env: 'NODUS_MOCK_JOURNAL_SIZE', default: '1000',
    help: 'requests kept per tenant in the request journal (`GET /_mock/requests`); older ones are evicted',
    schema: z.coerce.number().int().positive().max(1_000_000),
  },
  scenario: {
    flag: 'scenario', env: 'NODUS_MOCK_SCENARIO', default: undefined, unset: 'none',
    help: 'JSON scenario file applied at start: per key clock, faults, workload rules, recipe overrides, budget, levers (see scenarios/)',
    more: '; the format: [scenario files](docs/control-api.md#scenario-files)',
    schema: z.string().min(1).optional(),
  },
  restore: {
    flag: 'restore', env: 'NODUS_MOCK_RESTORE', default: undefined, unset: 'none',
    help: 'snapshot file (`GET /_mock/snapshot`) restored at start into the tenant of the printed key',
    more: ' (`--restore-key`, else `nk_test_local` in open mode); see [snapshots.md](docs/snapshots.md)',
    schema: z.string().min(1).optional(),
  },
  restoreKey: {
    flag: 'restore-key', env: 'NODUS_MOCK_RESTORE_KEY', default: undefined, unset: 'the printed key',
    help: 'the key whose tenant `--restore` restores into and the start-up lines print; in strict mode one of `--keys`',
    more: ', in open mode any `nk_test_` key; the key the snapshot was taken with keeps its ids ([snapshots.md](docs/snapshots.md#forking-one-baseline-many-tenants))',
    schema: z.string().regex(API_KEY_PATTERN, 'a key must be printable ASCII without spaces').optional(),
  },
  maxLogBytesPerAttempt: {
    flag: 'max-log-bytes-per-attempt', env: 'NODUS_MOCK_MAX_LOG_BYTES_PER_ATTEMPT', default: '8388608',
    help: 'log bytes kept per stage and generation; later lines are dropped and the log says it was truncated',
    schema: z.coerce.number().int().positive().max(2 ** 40),
  },
  maxImportBytes: {
    flag: 'max-import-bytes', env: 'NODUS_MOCK_MAX_IMPORT_BYTES', default: '67108864',
    help: 'largest asset upload or import; `GET /v1/assets` reports it as `max_import_bytes`',
    more: ' (see [assets.md](docs/assets.md))',
    // An upload is held in memory until it is stored whole, so the bound stays well inside a Buffer.
    schema: z.coerce.number().int().positive().max(2 ** 30),
  },
  assetQuotaBytes: {
    flag: 'asset-quota-bytes', env: 'NODUS_MOCK_ASSET_QUOTA_BYTES', default: '1073741824',
    help: 'asset bytes each tenant may store; beyond it uploads and imports answer 409',
    schema: z.coerce.number().int().positive().max(2 ** 50),
  },
  maxSnapshotBytes: {
    flag: 'max-snapshot-bytes', env: 'NODUS_MOCK_MAX_SNAPSHOT_BYTES', default: '4294967296',
    help: 'largest snapshot `PUT /_mock/snapshot` and `--restore` take; a larger body answers 413',
    more: '. The document streams through: its rows wait in temporary files (about its own size, in the system\'s temporary folder) until the restore\'s one transaction; see [snapshots.md](docs/snapshots.md#size)',
    // The document streams through, its rows spooled to temporary files, so no bound of memory
    // applies; the default is far above any tenant a test makes (1,000 training runs are 330 MB)
    // and stays a bound on the temporary disk a client can fill.
    schema: z.coerce.number().int().positive().max(2 ** 50),
  },
  webhookHosts: {
    flag: 'webhook-hosts', env: 'NODUS_MOCK_WEBHOOK_HOSTS', default: 'loopback,host.docker.internal',
    help: 'hosts a webhook URL may name, comma separated: host names, IP addresses, `loopback` (localhost, 127.0.0.0/8, ::1) or `*` for any',
    more: '; see [webhooks.md](docs/webhooks.md)',
    schema: z.string().transform(parseHostList),
  },
  allowedHosts: {
    flag: 'allowed-hosts', env: 'NODUS_MOCK_ALLOWED_HOSTS', default: undefined, unset: 'own names only',
    help: 'more names the server answers to in the `Host` header, comma separated, or `*` for any (always: localhost, loopback addresses, the listening address, host.docker.internal)',
    more: '; see [Host names](#host-names)',
    schema: z.string().transform(parseHostList).optional(),
  },
  requestTimeoutMs: {
    flag: 'request-timeout-ms', env: 'NODUS_MOCK_REQUEST_TIMEOUT_MS', default: '60000',
    help: 'wall milliseconds a client has to send a whole request, headers and body; a slower one is answered 408 `request_timeout` and its connection closed',
    more: ', which frees what an upload held',
    schema: z.coerce.number().int().min(1).max(3_600_000),
  },
  idleTimeoutMs: {
    flag: 'idle-timeout-ms', env: 'NODUS_MOCK_IDLE_TIMEOUT_MS', default: '72000',
    help: 'wall milliseconds a kept-alive connection may wait for its next request, or a new one for its first byte, before it is closed',
    schema: z.coerce.number().int().min(1).max(3_600_000),
  },
  uploadMemoryBytes: {
    flag: 'upload-memory-bytes', env: 'NODUS_MOCK_UPLOAD_MEMORY_BYTES', default: '268435456',
    help: 'upload bytes all uploads in progress may hold in memory together; past it an upload is refused at once, 503 `uploads_busy`',
    more: ' with `Retry-After` (see [Uploads in memory and timeouts](#uploads-in-memory-and-timeouts))',
    schema: z.coerce.number().int().positive().max(2 ** 40),
  },
  uploadMemoryBytesPerTenant: {
    flag: 'upload-memory-bytes-per-tenant', env: 'NODUS_MOCK_UPLOAD_MEMORY_BYTES_PER_TENANT', default: '134217728',
    help: 'upload bytes one tenant\'s uploads in progress may hold in memory together; past it an upload is refused at once, 429 `too_many_uploads`',
    more: ' with `Retry-After`',
    schema: z.coerce.number().int().positive().max(2 ** 40),
  },
  webhookTimeoutMs: {
    flag: 'webhook-timeout-ms', env: 'NODUS_MOCK_WEBHOOK_TIMEOUT_MS', default: '5000',
    help: 'wall milliseconds a webhook receiver has to answer one delivery before the attempt counts as failed',
    more: ', retried on the virtual clock',
    schema: z.coerce.number().int().min(1).max(600_000),
  },
} as const satisfies Record<string, OptionSpec>;

type Options = typeof OPTIONS;
export type OptionName = keyof Options;
export type Config = { [K in OptionName]: z.output<Options[K]['schema']> };

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const ConfigSchema = z.object(
  Object.fromEntries(Object.entries(OPTIONS).map(([name, o]) => [name, o.schema])) as {
    [K in OptionName]: Options[K]['schema'];
  },
);

const BINARY_UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/** 67108864 → 64 MiB: a count of bytes in the largest binary unit it is a whole number of. */
function inBinaryUnits(bytes: number): string | undefined {
  let unit = -1;
  while (unit + 1 < BINARY_UNITS.length && bytes % 1024 ** (unit + 2) === 0) unit++;
  return unit === -1 ? undefined : `${bytes / 1024 ** (unit + 1)} ${BINARY_UNITS[unit]}`;
}

/**
 * A setting's default as `--help`, the docs table and the Node API's typings show it: the value
 * (a count of bytes also in binary units), or what no value means. `api`: the Node API's.
 */
export function shownDefault(option: OptionSpec, api = false): { value: string; size?: string } | { words: string } {
  const differs = api && option.api !== undefined;
  const value = differs ? option.api!.default : option.default;
  if (value === undefined) return { words: (differs ? option.api!.unset : option.unset) ?? 'none' };
  const size = option.flag.includes('bytes') ? inBinaryUnits(Number(value)) : undefined;
  return size === undefined ? { value } : { value, size };
}

export const HELP_TEXT = (() => {
  const rows = Object.values(OPTIONS).map((o: OptionSpec) => {
    const left = `  --${o.flag} <value>`;
    const shown = shownDefault(o);
    const dflt = 'words' in shown ? `(default: ${shown.words})` : `(default ${shown.value}${shown.size ? ` = ${shown.size}` : ''})`;
    // A flag too long for its column gets its text on the next line rather than running into it.
    const head = left.length < 32 ? left.padEnd(32) : `${left}\n${''.padEnd(32)}`;
    return `${head}${o.help} ${dflt}\n${''.padEnd(32)}env ${o.env}`;
  });
  return [
    'Usage: nodus-mock [options]',
    '       nodus-mock verify --base-url URL --api-key KEY [--json FILE] [--only OPS] [--timeout SECONDS]',
    '',
    'A stateful mock of the Nodus control plane. Flags override environment variables,',
    'which override defaults.',
    '',
    'Options:',
    ...rows,
    '  --help                        print this text',
    '  --version                     print the version',
    '',
    'Commands:',
    "  verify                        check a real Nodus control plane against this mock's OpenAPI",
    '                                document, with free calls that change nothing; exit 0 match,',
    '                                1 drift, 2 usage, connection or key problem (verify --help)',
  ].join('\n');
})();

/**
 * `--port -1` as `--port=-1`: parseArgs calls a value that starts with a dash ambiguous, so a
 * negative number would get its message instead of the option's own.
 */
function joinNegativeValues(argv: string[]): string[] {
  const valued = new Set(Object.values(OPTIONS).map((o) => `--${o.flag}`));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (valued.has(argv[i]) && /^-\.?\d/.test(argv[i + 1] ?? '')) out.push(`${argv[i]}=${argv[++i]}`);
    else out.push(argv[i]);
  }
  return out;
}

type CliRequest = { kind: 'help' } | { kind: 'version' } | { kind: 'run'; config: Config };

/** Resolves flags > env > defaults; throws ConfigError with a one-line reason when invalid. */
export function resolveCli(argv: string[], env: NodeJS.ProcessEnv): CliRequest {
  let values: Record<string, string | boolean | undefined>;
  try {
    const flagSpec = Object.fromEntries(
      Object.values(OPTIONS).map((o) => [o.flag, { type: 'string' as const }]),
    );
    values = parseArgs({
      args: joinNegativeValues(argv),
      options: { ...flagSpec, help: { type: 'boolean' }, version: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    throw new ConfigError((err as Error).message.split('\n')[0]);
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const raw: Record<string, unknown> = {};
  for (const [name, o] of Object.entries(OPTIONS)) {
    raw[name] = values[o.flag] ?? (env[o.env] === '' ? undefined : env[o.env]) ?? o.default;
  }
  // Parsed once per start: zod's compiled fast path would cost more to build (2 ms) than it saves.
  const parsed = ConfigSchema.safeParse(raw, { jitless: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0]) as OptionName;
    const o = OPTIONS[name];
    throw new ConfigError(`invalid --${o.flag} / ${o.env}: ${issue.message}`);
  }
  const { restoreKey, restore, keys } = parsed.data;
  if (restoreKey !== undefined) {
    const fail = (why: string) => new ConfigError(`invalid --${OPTIONS.restoreKey.flag} / ${OPTIONS.restoreKey.env}: ${why}`);
    if (restore === undefined) throw fail(`it names where --${OPTIONS.restore.flag} restores to: give a snapshot file too`);
    if (keys && !keys.some((entry) => entry.key === restoreKey)) throw fail('in strict mode it must be one of --keys');
    if (!keys && !restoreKey.startsWith(OPEN_MODE_KEY_PREFIX)) throw fail(`API keys on this mock start with ${OPEN_MODE_KEY_PREFIX}`);
  }
  return { kind: 'run', config: parsed.data as Config };
}

/** The defaults, for tests and the Node API; `overrides` win. */
export function defaultConfig(overrides: Partial<Config> = {}): Config {
  const result = resolveCli([], {});
  if (result.kind !== 'run') throw new Error('unreachable');
  return { ...result.config, ...overrides };
}

/**
 * The key the start-up lines print: the one a snapshot was restored into, else the first
 * configured one, else open mode's local key.
 */
export function printedKey(config: Pick<Config, 'keys' | 'restoreKey'>): string {
  return config.restoreKey ?? (config.keys ? config.keys[0].key : 'nk_test_local');
}

/** What the start-up log shows: everything but key material. */
export function describeConfig(config: Config): Record<string, unknown> {
  const { keys, ...rest } = config;
  return { ...rest, keys: keys ? `${keys.length} configured (strict mode)` : 'open mode (nk_test_*)' };
}
