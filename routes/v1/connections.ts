import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import { Connection, ConnectionCreate, ConnectionList, ConnectionParams } from '../../openapi/connections.js';
import { connectionView } from '../../server/http/views/connection.js';
import { lazy } from '../../openapi/lazy.js';

export default (async function connectionRoutes(app) {
  const { connections } = app.services;

  app.post('/connections', {
    schema: {
      operationId: 'createConnection',
      tags: ['Connections'],
      summary: 'Verify and create a connection pinning the named secret\'s current version',
      body: ConnectionCreate,
      response: { 201: Connection },
    },
    config: { validationCodes: { body: 'invalid_connection' } },
  }, async (request, reply) => reply.code(201).send(connectionView(connections.create(request.tenant.id, request.tenant.keyId, request.body))));

  app.get('/connections', {
    schema: {
      operationId: 'listConnections',
      tags: ['Connections'],
      summary: 'The tenant\'s connections, oldest first; never a credential',
      response: { 200: ConnectionList },
    },
  }, async (request) => ({ connections: connections.list(request.tenant.id).map(connectionView) }));

  app.get('/connections/:id', {
    schema: {
      operationId: 'getConnection',
      tags: ['Connections'],
      summary: 'One connection, by name or id',
      params: ConnectionParams,
      response: { 200: Connection },
    },
  }, async (request) => connectionView(connections.get(request.tenant.id, request.params.id)));

  app.delete('/connections/:id', {
    schema: {
      operationId: 'deleteConnection',
      tags: ['Connections'],
      summary: 'Delete a connection; 409 connection_in_use while an active workload or query export uses it',
      params: ConnectionParams,
      response: { 204: lazy(() => z.null().describe('Connection deleted')), ...errorResponses(409) },
    },
  }, async (request, reply) => {
    connections.delete(request.tenant.id, request.params.id);
    return reply.code(204).send(null);
  });

  app.post('/connections/:id/verify', {
    schema: {
      operationId: 'verifyConnection',
      tags: ['Connections'],
      summary: 'Reverify with the pinned secret version; 400 connection_stale once the secret moved on',
      params: ConnectionParams,
      response: { 200: Connection },
    },
  }, async (request) => connectionView(connections.verify(request.tenant.id, request.params.id)));
}) satisfies FastifyPluginAsyncZod;
