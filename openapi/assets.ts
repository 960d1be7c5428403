import { z } from 'zod';
import { dateTime, jsonObject } from './primitives.js';
import { built, lazy } from './lazy.js';

/**
 * Assets: what an upload or import answers, the list with this deployment's limits, and the
 * import request. The real service's document leaves these objects open and their strings free
 * (`kind` and `state` are prose there, not enums), so they are here too: the server's own values
 * are fixed by server/domain/assets/, not by the wire shape.
 */

/** The file format of a database query export. */
const queryFormat = lazy(() => z.enum(['parquet', 'csv']));

export const ConnectionExport = lazy(() => z
  // Nothing is required: the contract lists no required field (this server always sends them all).
  .looseObject({
    id: z.string().optional(),
    connection_id: z.string().optional(),
    asset_id: z.string().optional(),
    query_hash: z.string().optional(),
    branch: z.string().optional(),
    format: built(queryFormat).optional(),
    row_count: z.int().min(0).optional(),
    bytes: z.int().min(0).optional(),
    created_at: built(dateTime).optional(),
    state: z.enum(['pending', 'running', 'cleanup', 'ready']).optional(),
  })
  .meta({ id: 'ConnectionExport' }));
export type ConnectionExport = z.infer<typeof ConnectionExport>;

export const Asset = lazy(() => z
  // Nothing is required here either.
  .looseObject({
    id: z.string().optional().describe('asset_ followed by 1 to 64 letters, digits or hyphens'),
    kind: z.string().optional().describe('upload, url, github, huggingface, connection_query or workspace_source'),
    name: z.string().optional(),
    state: z.string().optional().describe('importing, ready, failed, deleting or deleted'),
    revision: z.string().optional(),
    sha256: z.string().optional().describe('of the stored contents; empty until ready'),
    stored_bytes: z.int().optional(),
    imported_bytes: z.int().optional(),
    created_at: built(dateTime).optional(),
    ready_at: built(dateTime).nullable().optional(),
    deleted_at: built(dateTime).nullable().optional(),
    export: built(ConnectionExport).optional().describe('connection_query imports only'),
    error: z.string().optional().describe('why a failed import failed; never a value from the source'),
    workspace_source: built(jsonObject).optional(),
  })
  .meta({
    id: 'Asset',
    description: 'state is one of importing, ready, failed, deleting, deleted (prose in the source, no enum)',
  }));
export type Asset = z.infer<typeof Asset>;

export const AssetList = lazy(() => z
  .looseObject({
    assets: z.array(built(Asset)).max(500).describe('newest first; deleted assets left out'),
    max_import_bytes: z.int().describe('the largest single upload or import'),
    storage_quota_bytes: z.int().describe('what this tenant may store in all'),
    staged_bytes: z.int().describe('held by imports still in progress'),
    stored_bytes: z.int().describe('held by the assets that are not deleted'),
    billing_enabled: z.literal(false),
    workspace_source_storage: built(jsonObject).optional(),
    upload_idempotency: z.boolean().optional().describe('keyed uploads (Idempotency-Key with X-Nodus-SHA256) are supported'),
  })
  .meta({ id: 'AssetList' }));
export type AssetList = z.infer<typeof AssetList>;

export const ImportKind = lazy(() => z.enum(['github', 'huggingface', 'url', 'connection_query']));
export type ImportKind = z.infer<typeof ImportKind>;

export const AssetImportRequest = lazy(() => z
  .looseObject({
    kind: built(ImportKind),
    url: z.string().optional().describe('url: https, without userinfo'),
    repo: z.string().optional().describe('github, huggingface: owner/name, or the repository\'s https URL'),
    ref: z.string().max(255).meta({ default: 'main' }).optional().describe('github, huggingface: empty or absent means main'),
    files: z.array(z.string()).max(100).nullable().optional().describe('huggingface: file patterns'),
    token: z.string().meta({ writeOnly: true }).optional().describe('github, huggingface: a credential, used once and never stored'),
    connection_id: z.string().optional().describe('connection_query: a connection name or id'),
    sql: z.string().max(60000).optional().describe('connection_query: one SELECT or WITH statement'),
    format: built(queryFormat).meta({ default: 'parquet' }).optional(),
    branch: z.string().optional(),
    reuse: z.boolean().meta({ default: false }).optional().describe('connection_query: answer an earlier ready export of the same query'),
  })
  .meta({ id: 'AssetImportRequest' }));
export type AssetImportRequest = z.infer<typeof AssetImportRequest>;
