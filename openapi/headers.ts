import { z } from 'zod';
import { sha256Hex } from './primitives.js';
import { built, lazy } from './lazy.js';

/**
 * Request and response headers, as zod objects keyed the way Node hands them over: lower-cased.
 * Routes validate `request.headers` with the request ones and declare the response ones beside
 * their `response` schemas; the document names each header as HTTP APIs spell it, from
 * HEADER_NAMES (the generator refuses a header missing there).
 */
export const HEADER_NAMES = [
  'Cache-Control',
  'ETag',
  'Idempotency-Key',
  'Idempotent-Replayed',
  'Nodus-Client',
  'X-Nodus-Generation',
  'X-Nodus-Group-Id',
  'X-Nodus-Log-Expired',
  'X-Nodus-Log-Source',
  'X-Nodus-Log-Truncated',
  'X-Nodus-Member-Id',
  'X-Nodus-SHA256',
  'X-Nodus-Stage-Id',
] as const;

/** The contract's bounds (1–256) and the SDK's own rule: printable ASCII, no spaces. */
export const IdempotencyKey = lazy(() => z.string().min(1).max(256).regex(/^[!-~]+$/));

/** The SDK's launch attribution; the mock records none, so every launch lists as `api`. */
export const ClientHeaders = lazy(() => z.object({
  'nodus-client': z.string().max(64).optional().describe('launch attribution (python-sdk, cli, mcp, ...); not recorded here'),
}));

/** A keyed creation (launch, submit, example run): the key is required. */
export const KeyedHeaders = lazy(() => z.object({
  'idempotency-key': built(IdempotencyKey).describe('one stable key per intended run, reused on every retry of it: a retry with the same body replays the first answer, another body under it is a 409'),
}));

export const UploadHeaders = lazy(() => z.object({
  'idempotency-key': built(IdempotencyKey).optional().describe('makes a retry of the same upload answer the same asset; needs X-Nodus-SHA256'),
  'x-nodus-sha256': built(sha256Hex).optional().describe('SHA-256 of the exact body, lower-case hex'),
}));

export const ReplayedHeaders = lazy(() => z.object({
  'idempotent-replayed': z.string().optional().describe('`true` when this answer replays the one first given under the same Idempotency-Key; absent on a fresh one'),
}));

/** Evidence that changes while the workload runs: never to be answered from a cache. */
export const NoStoreHeaders = lazy(() => z.object({
  'cache-control': z.literal('no-store').optional().describe('the page reflects the run as it is now'),
}));

export const PreviewHeaders = lazy(() => z.object({
  etag: z.string().optional().describe('the review token, quoted, when the run is launchable'),
}));

const digest = lazy(() => built(sha256Hex).optional().describe('SHA-256 of the body, lower-case hex'));
const stageId = lazy(() => z.string().optional().describe('the stage whose file or log this is'));
const flag = lazy(() => z.enum(['true', 'false']).optional());

export const OutputHeaders = lazy(() => z.object({ 'x-nodus-sha256': built(digest), 'x-nodus-stage-id': built(stageId) }));

export const LogHeaders = lazy(() => z.object({
  'x-nodus-sha256': built(digest),
  'x-nodus-log-source': z.enum(['live-snapshot']).optional().describe('the retained live snapshot'),
  'x-nodus-log-truncated': built(flag).describe('`true` when later lines were dropped at the retention limit'),
  'x-nodus-log-expired': built(flag).describe('always `false` here: retained logs do not expire'),
  'x-nodus-group-id': z.string().optional().describe('the distributed group; no workload here is distributed, so never sent'),
  'x-nodus-member-id': z.string().optional().describe('the member of a distributed group; never sent here'),
  'x-nodus-stage-id': built(stageId),
  'x-nodus-generation': z.string().regex(/^[0-9]+$/).optional().describe('the execution generation served, from 1'),
}));

/** GET /_mock/assets/{id}/content. */
export const StoredBytesHeaders = lazy(() => z.object({ 'x-nodus-sha256': built(digest) }));
