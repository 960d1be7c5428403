import type { AssetImportRequest, ImportKind } from '../../../openapi/assets.js';
import { canonicalSha256 } from '../json-text.js';
import { badRequest } from '../errors.js';

/** The SDK's own check before it builds a URL; anything else cannot name an asset. */
export const ASSET_ID_PATTERN = /^asset_[A-Za-z0-9-]{1,64}$/;

export const DEFAULT_UPLOAD_NAME = 'dataset';
const MAX_NAME_BYTES = 255;

/** An upload's `?name=`: one file name, as the SDK sends the basename of what it uploads. */
export function checkUploadName(name: string): string {
  const fail = (why: string) => badRequest('invalid_name', `name: ${why}`);
  if (name === '') throw fail('must not be empty');
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) throw fail(`must be at most ${MAX_NAME_BYTES} UTF-8 bytes`);
  if (/[/\\]/.test(name)) throw fail('must be a file name, without a path separator');
  if (/\p{Cc}/u.test(name)) throw fail('must not contain control characters');
  if (name === '.' || name === '..') throw fail('must be a file name');
  return name;
}

// ---------------------------------------------------------------------------------------------
// Imports

/** Fields each import kind reads; a field of another kind is a mistake worth a 400. */
const FIELDS: Record<ImportKind, readonly string[]> = {
  url: ['url'],
  github: ['repo', 'ref', 'token'],
  huggingface: ['repo', 'ref', 'files', 'token'],
  connection_query: ['connection_id', 'sql', 'format', 'branch', 'reuse'],
};
const ALL_FIELDS = new Set(Object.values(FIELDS).flat());

/** A checked import: what the stand-in content records and what the asset is called. */
export interface PlannedImport {
  kind: ImportKind;
  name: string;
  revision: string;
  /** What was asked, without the token: the stand-in content of a url, github or huggingface import. */
  request: Record<string, unknown>;
  query?: { connectionId: string; sql: string; format: 'parquet' | 'csv'; branch: string; reuse: boolean; hash: string };
}

const invalid = (message: string) => badRequest('invalid_import', message);
const CONTROL = /\p{Cc}/u;
const CONTROL_OR_SPACE = /[\p{Cc} ]/u;

/** github and huggingface: `owner/name`, or the repository's https URL, as the SDK accepts it. */
function repoOf(kind: 'github' | 'huggingface', raw: string | undefined): string {
  if (raw === undefined) throw invalid(`repo: required for a ${kind} import (owner/name)`);
  const prefix = kind === 'github' ? 'https://github.com/' : 'https://huggingface.co/datasets/';
  let repo = raw.startsWith(prefix) ? raw.slice(prefix.length) : raw;
  repo = repo.replace(/\/+$/, '');
  if (kind === 'github' && repo.endsWith('.git')) repo = repo.slice(0, -4);
  const parts = repo.split('/');
  if (parts.length !== 2 || parts.some((p) => p === '' || p === '.' || p === '..' || /[?#%\\\s:]/.test(p) || CONTROL.test(p))) {
    throw invalid(`repo: "${raw.replace(/\p{Cc}/gu, '?')}" is not owner/name`);
  }
  return repo;
}

function refOf(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'main';
  if (/[\r\n]/.test(raw) || CONTROL.test(raw)) throw invalid('ref: must not contain control characters or line breaks');
  return raw;
}

function urlOf(raw: string | undefined): { url: string; name: string } {
  if (raw === undefined) throw invalid('url: required for a url import');
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw invalid('url: not a URL');
  }
  if (CONTROL_OR_SPACE.test(raw)) throw invalid('url: must not contain spaces or control characters');
  if (parsed.protocol !== 'https:') throw invalid('url: must be https');
  if (parsed.username || parsed.password) throw invalid('url: must not carry credentials (user:password@)');
  if (!parsed.hostname) throw invalid('url: needs a host');
  const last = decodeURIComponent(parsed.pathname.split('/').filter(Boolean).pop() ?? '').replace(/[/\\\p{Cc}]/gu, '_');
  return { url: raw, name: last || parsed.hostname };
}

const CONNECTION_REF = /^[A-Za-z_][A-Za-z0-9_-]{0,131}$/;

/**
 * Checks an import as the contract and the SDK describe it; nothing can be downloaded here, so a
 * valid request is all there is to check.
 */
export function planImport(body: AssetImportRequest): PlannedImport {
  const { kind } = body;
  for (const field of Object.keys(body)) {
    if (ALL_FIELDS.has(field) && !FIELDS[kind].includes(field) && body[field] !== undefined) {
      throw invalid(field === 'token' ? 'token: URL imports take no credential; use a public or signed https link' : `${field}: does not apply to a ${kind} import`);
    }
  }
  if (body.token !== undefined && (body.token === '' || CONTROL_OR_SPACE.test(body.token))) {
    throw invalid('token: must be a credential without whitespace');
  }
  switch (kind) {
    case 'url': {
      const { url, name } = urlOf(body.url);
      return { kind, name, revision: '1', request: { kind, url } };
    }
    case 'github':
    case 'huggingface': {
      const repo = repoOf(kind, body.repo);
      const ref = refOf(body.ref);
      const files = body.files ?? null;
      if (files?.some((f) => f === '' || CONTROL.test(f))) throw invalid('files: each pattern must be non-empty, without control characters');
      const request = kind === 'github' ? { kind, repo, ref } : { kind, repo, ref, files };
      return { kind, name: repo, revision: ref, request };
    }
    case 'connection_query': {
      const connectionId = body.connection_id;
      if (connectionId === undefined || !CONNECTION_REF.test(connectionId)) throw invalid('connection_id: a connection name or id is required');
      const sql = body.sql ?? '';
      if (!/^\s*(select|with)\b/i.test(sql)) throw invalid('sql: must be one query starting with SELECT or WITH');
      if (Buffer.byteLength(sql, 'utf8') > 60_000 || sql.includes('\0')) throw invalid('sql: at most 60,000 bytes, without NUL');
      const branch = body.branch ?? '';
      if (CONTROL.test(branch) || branch.length > 255) throw invalid('branch: at most 255 characters, without control characters');
      const format = body.format ?? 'parquet';
      const hash = canonicalSha256({ connection_id: connectionId, sql, format, branch });
      return {
        kind,
        name: `${connectionId}-${hash.slice(0, 12)}.${format}`,
        revision: '1',
        request: { kind, connection_id: connectionId, sql, format, branch },
        query: { connectionId, sql, format, branch, reuse: body.reuse ?? false, hash },
      };
    }
  }
}

/**
 * The contents of an import, since nothing is fetched: a manifest of what was asked, the same
 * bytes for the same request, that says it is a stand-in.
 */
export function standInContent(plan: PlannedImport): Buffer {
  return Buffer.from(`${JSON.stringify({ nodus_mock_stand_in: true, note: 'nodus-mock downloads nothing: this manifest records what the import asked for', ...plan.request }, null, 2)}\n`);
}
