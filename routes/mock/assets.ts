import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Asset } from '../../openapi/assets.js';
import { BinaryBody, errorResponses } from '../../openapi/common.js';
import { StoredBytesHeaders } from '../../openapi/headers.js';
import { AssetFailRequest, AssetFiles } from '../../openapi/mock-assets.js';
import { AssetParams } from '../../openapi/params.js';
import { RESPONSE_HEADERS } from '../../server/http/openapi-document.js';
import { assetView } from '../../server/http/views/asset.js';

/** What /v1 never serves: an asset's contents, so a test can check what its client packaged; and failing an import. */
export default (async function mockAssetRoutes(app) {
  const { assets } = app.services;

  app.get('/assets/:id/content', {
    schema: {
      operationId: 'getMockAssetContent',
      tags: ['mock'],
      summary: 'The bytes stored for an asset (the stand-in manifest for an import); X-Nodus-SHA256 carries their digest',
      params: AssetParams,
      response: {
        200: { description: 'the stored bytes', content: { 'application/octet-stream': { schema: BinaryBody } } },
      },
      [RESPONSE_HEADERS]: { 200: StoredBytesHeaders },
    },
  }, async (request, reply) => {
    const { asset, data } = assets.content(request.tenant.id, request.params.id);
    return reply.header('x-nodus-sha256', asset.row.sha256).type('application/octet-stream').send(data);
  });

  app.get('/assets/:id/files', {
    schema: {
      operationId: 'listMockAssetFiles',
      tags: ['mock'],
      summary: 'The members of an uploaded archive, as checked and kept at upload',
      params: AssetParams,
      response: { 200: AssetFiles },
    },
  }, async (request) => {
    const { asset, files } = assets.files(request.tenant.id, request.params.id);
    return { asset_id: asset.row.id, name: asset.row.name, archive: asset.row.archive, files };
  });

  app.post('/assets/:id/fail', {
    schema: {
      operationId: 'failMockAssetImport',
      tags: ['mock'],
      summary: 'End a connection_query import in progress as failed, with the given error text',
      params: AssetParams,
      body: AssetFailRequest,
      response: { 200: Asset, ...errorResponses(409) },
    },
  }, async (request) => assetView(assets.fail(request.tenant.id, request.params.id, request.body.error)));
}) satisfies FastifyPluginAsyncZod;
