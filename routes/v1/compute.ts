import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../openapi/common.js';
import { ClientHeaders } from '../../openapi/headers.js';
import { ComputeGroupPage, ComputeGroupParams, ComputeGroupQuery, ComputeList, ComputeQuery } from '../../openapi/compute.js';
import { groupView, itemView } from '../../server/http/views/compute.js';

const validationCodes = { 'querystring.limit': 'invalid_limit', 'querystring.cursor': 'invalid_cursor' };

export default (async function computeRoutes(app) {
  const { compute } = app.services;

  app.get('/compute', {
    schema: {
      operationId: 'listCompute',
      tags: ['Compute'],
      summary: 'The tenant\'s training newest first, runs sharing a sweep_id as one sweep_ item; instances and workspaces list nothing here',
      querystring: ComputeQuery,
      headers: ClientHeaders,
      response: { 200: ComputeList, ...errorResponses(403) },
    },
    config: { validationCodes },
  }, async (request) => {
    const page = await compute.list(request.tenant.id, request.query);
    return {
      items: page.items.map(itemView),
      next_cursor: page.nextCursor,
      summary: { running: { instance: 0, training: page.extra.runningTraining, workspace: 0 } },
    };
  });

  app.get('/compute/groups/:id', {
    schema: {
      operationId: 'getComputeGroup',
      tags: ['Compute'],
      summary: 'One sweep\'s counts and its runs, newest first; 404 for a sweep with no training here',
      params: ComputeGroupParams,
      querystring: ComputeGroupQuery,
      response: { 200: ComputeGroupPage },
    },
    config: { validationCodes },
  }, async (request) => {
    const page = await compute.group(request.tenant.id, request.params.id, request.query);
    return { group: groupView(page.extra.group), items: page.items.map(itemView), next_cursor: page.nextCursor };
  });
}) satisfies FastifyPluginAsyncZod;
