import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SecretList, SecretMetadata, SecretParams, SecretWrite } from '../../openapi/secrets.js';
import { secretView } from '../../server/http/views/connection.js';
import { lazy } from '../../openapi/lazy.js';

/**
 * Secrets: every refusal here is SandboxError (`sandboxErrors`). The journal keeps a put's body
 * with its value redacted, as it does for any request to a secrets path (server/http/journal.ts).
 */
export default (async function secretRoutes(app) {
  const { secrets } = app.services;
  const config = { sandboxErrors: true, validationCodes: { body: 'invalid_secret' } };

  app.post('/secrets', {
    schema: {
      operationId: 'putSecret',
      tags: ['Secrets'],
      summary: 'Write a secret version: a new name starts at version 1, an existing one moves to the next',
      body: SecretWrite,
      response: { 201: SecretMetadata },
    },
    config,
  }, async (request, reply) => reply.code(201).send(secretView(secrets.put(request.tenant.id, request.body))));

  app.get('/secrets', {
    schema: {
      operationId: 'listSecrets',
      tags: ['Secrets'],
      summary: 'The tenant\'s secret names and current versions, oldest first; never a value',
      response: { 200: SecretList },
    },
    config,
  }, async (request) => ({ secrets: secrets.list(request.tenant.id).map(secretView) }));

  app.delete('/secrets/:name', {
    schema: {
      operationId: 'deleteSecret',
      tags: ['Secrets'],
      summary: 'Retire a secret; connections that pin it take no new use',
      params: SecretParams,
      response: { 204: lazy(() => z.null().describe('Secret deleted')) },
    },
    config,
  }, async (request, reply) => {
    secrets.delete(request.tenant.id, request.params.name);
    return reply.code(204).send(null);
  });
}) satisfies FastifyPluginAsyncZod;
