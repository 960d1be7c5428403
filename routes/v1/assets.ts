import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Asset, AssetImportRequest, AssetList } from '../../openapi/assets.js';
import { BinaryBody, errorResponses } from '../../openapi/common.js';
import { ReplayedHeaders, UploadHeaders } from '../../openapi/headers.js';
import { AssetParams } from '../../openapi/params.js';
import { OPTIONS } from '../../server/config.js';
import { UploadCollector, uploadTooLarge, type ReceivedUpload, type UploadHold } from '../../server/domain/assets/upload.js';
import type { ImportOutcome } from '../../server/domain/assets/service.js';
import { ApiError } from '../../server/http/api-error.js';
import { markReplayed } from '../../server/http/idempotency.js';
import { RESPONSE_HEADERS } from '../../server/http/openapi-document.js';
import { UploadMemory } from '../../server/http/upload-memory.js';
import { assetListView, assetView } from '../../server/http/views/asset.js';
import { lazy } from '../../openapi/lazy.js';

const UploadQuery = lazy(() => z.object({
  name: z.string().meta({ default: 'dataset' }).optional().describe('the file name, with its archive extension (.tar, .tar.gz, .tgz, .zip) for an archive'),
}));

const UPLOAD_VALIDATION_CODES = {
  'headers.idempotency-key': 'invalid_idempotency_key',
  'headers.x-nodus-sha256': 'invalid_sha256',
  'querystring.name': 'invalid_name',
};

/**
 * Reads an upload as it streams in: hashed and counted chunk by chunk, refused at the limit (or at
 * once, when Content-Length already says so) without keeping anything past it. What arrived is
 * noted for the request journal, which records an upload by size and hash only.
 */
function readUpload(limit: number) {
  return (request: FastifyRequest, payload: NodeJS.ReadableStream, done: (err: Error | null, body?: ReceivedUpload) => void) => {
    const declared = Number(request.headers['content-length']);
    if (declared > limit) {
      request.upload = { bytes: declared, sha256: null };
      return done(uploadTooLarge(limit));
    }
    // What Content-Length promises is held before any of it is read: a refusal then costs nothing.
    try {
      if (declared > 0) request.uploadHold.cover(declared);
    } catch (err) {
      request.upload = { bytes: 0, sha256: null };
      return done(err as Error);
    }
    const collector = new UploadCollector(limit, request.uploadHold);
    let settled = false;
    const settle = (err: Error | null, body?: ReceivedUpload) => {
      if (settled) return;
      settled = true;
      request.upload = { bytes: collector.received, sha256: body?.sha256 ?? null };
      done(err, body);
    };
    payload.on('data', (chunk: Buffer) => {
      if (settled) return; // refused: the rest is read and dropped, never kept
      try {
        collector.push(chunk);
      } catch (err) {
        settle(err as Error);
      }
    });
    payload.on('end', () => settle(null, collector.finish()));
    payload.on('error', (err: Error) => settle(err));
  };
}

const refuseMediaType = (request: FastifyRequest, _payload: unknown, done: (err: Error | null) => void) =>
  done(new ApiError(400, 'unsupported_content_type', `send the file's bytes as application/octet-stream (not ${request.headers['content-type'] ?? 'without a Content-Type'}, and not multipart)`));

/** The upload route, in a context of its own: it alone takes raw bytes, and nothing else here does. */
const uploadRoute: FastifyPluginAsyncZod = async (app) => {
  const { assets } = app.services;
  app.decorateRequest('upload', null);
  app.decorateRequest('uploadHold', null as unknown as UploadHold);
  const { flag, env } = OPTIONS.uploadMemoryBytes;
  const perTenant = OPTIONS.uploadMemoryBytesPerTenant;
  const memory = new UploadMemory(app.config.uploadMemoryBytes, app.config.uploadMemoryBytesPerTenant, {
    server: `--${flag} / ${env}`,
    tenant: `--${perTenant.flag} / ${perTenant.env}`,
  });
  // Released when the answer is sent or the connection is gone, whichever comes first: the
  // bytes stay referenced until the route has stored them.
  app.addHook('onRequest', (request, reply, done) => {
    const hold = memory.open(request.tenant.id);
    request.uploadHold = hold;
    reply.raw.once('close', hold.release);
    done();
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/octet-stream', readUpload(app.config.maxImportBytes));
  app.addContentTypeParser('*', refuseMediaType);

  app.post('/assets/upload', {
    schema: {
      operationId: 'uploadAsset',
      tags: ['Assets'],
      summary: 'Upload one file or archive as raw bytes; 201 with the ready asset (a keyed retry answers the same asset)',
      querystring: UploadQuery,
      headers: UploadHeaders,
      body: { content: { 'application/octet-stream': { schema: BinaryBody } } },
      response: { 201: Asset, ...errorResponses(409, 429, 500, 502, 503) },
      [RESPONSE_HEADERS]: { 201: ReplayedHeaders },
    },
    config: { validationCodes: UPLOAD_VALIDATION_CODES },
  }, async (request, reply) => {
    // A bare POST has no body for any parser to read.
    const received = request.body as ReceivedUpload | undefined;
    const { replayed, asset } = await assets.upload(request.tenant.id, {
      data: received?.data ?? Buffer.alloc(0),
      sha256: received?.sha256 ?? '',
      name: request.query.name,
      key: request.headers['idempotency-key'],
      claimedSha256: request.headers['x-nodus-sha256'],
    });
    if (replayed) markReplayed(reply);
    return reply.code(201).send(assetView(asset));
  });
};

/** 201 ready at once, 202 while a query export runs on the tenant's clock, 200 for an earlier export reused. */
const IMPORT_STATUS = { ready: 201, importing: 202, reused: 200 } as const satisfies Record<ImportOutcome, number>;

export default (async function assetRoutes(app) {
  const { assets } = app.services;

  app.get('/assets', {
    schema: {
      operationId: 'listAssets',
      tags: ['Assets'],
      summary: 'The newest 500 assets that are not deleted, and this deployment\'s limits',
      response: { 200: AssetList, ...errorResponses(500) },
    },
  }, async (request) => assetListView(assets.list(request.tenant.id), app.config));

  await app.register(uploadRoute);

  app.post('/assets/import', {
    schema: {
      operationId: 'importAsset',
      tags: ['Assets'],
      summary: 'Import from a URL, GitHub or Hugging Face (201, ready) or a database query (202, importing; 200 when an earlier export is reused)',
      body: AssetImportRequest,
      response: { 200: Asset, 201: Asset, 202: Asset, ...errorResponses(409, 500, 502) },
    },
    config: { validationCodes: { body: 'invalid_import' } },
  }, async (request, reply) => {
    const { outcome, asset } = assets.import(request.tenant.id, request.body);
    return reply.code(IMPORT_STATUS[outcome]).send(assetView(asset));
  });

  app.get('/assets/:id', {
    schema: {
      operationId: 'getAsset',
      tags: ['Assets'],
      summary: 'One asset\'s metadata (never its contents)',
      params: AssetParams,
      response: { 200: Asset },
    },
  }, async (request) => assetView(assets.get(request.tenant.id, request.params.id)));

  app.delete('/assets/:id', {
    schema: {
      operationId: 'deleteAsset',
      tags: ['Assets'],
      summary: 'Delete an asset; 409 asset_in_use while it is importing or an active workload uses it',
      params: AssetParams,
      response: { 204: lazy(() => z.null().describe('Asset deleted')), ...errorResponses(409, 500, 502) },
    },
  }, async (request, reply) => {
    assets.delete(request.tenant.id, request.params.id);
    return reply.code(204).send(null);
  });
}) satisfies FastifyPluginAsyncZod;
