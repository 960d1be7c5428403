import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { WorkloadRule, WorkloadRuleList, WorkloadRuleParams, WorkloadRuleView } from '../../openapi/workload-rules.js';
import { presentWorkloadRule } from '../../server/http/views/workload-rule.js';
import { lazy } from '../../openapi/lazy.js';

/** Workload rules: what happens to runs not launched yet, applied as they are materialised. */
export default (async function mockWorkloadRuleRoutes(app) {
  const { workloadRules } = app.services;

  app.post('/workload-rules', {
    schema: {
      operationId: 'createMockWorkloadRule',
      tags: ['mock'],
      summary: 'Add a workload rule: an intervention on the workloads it matches, when its trigger comes',
      body: WorkloadRule,
      response: { 201: WorkloadRuleView },
    },
  }, async (request, reply) => reply.code(201).send(presentWorkloadRule(workloadRules.add(request.tenant.id, request.body))));

  app.get('/workload-rules', {
    schema: {
      operationId: 'listMockWorkloadRules',
      tags: ['mock'],
      summary: 'This tenant\'s workload rules, oldest first, with their counters and the workloads each bound',
      response: { 200: WorkloadRuleList },
    },
  }, async (request) => ({ rules: (await workloadRules.list(request.tenant.id)).map(presentWorkloadRule) }));

  app.delete('/workload-rules/:id', {
    schema: {
      operationId: 'deleteMockWorkloadRule',
      tags: ['mock'],
      summary: 'Remove one workload rule (the workloads it bound keep it)',
      params: WorkloadRuleParams,
      response: { 204: lazy(() => z.null()) },
    },
  }, async (request, reply) => {
    workloadRules.remove(request.tenant.id, request.params.id);
    return reply.code(204).send(null);
  });

  app.delete('/workload-rules', {
    schema: {
      operationId: 'clearMockWorkloadRules',
      tags: ['mock'],
      summary: 'Remove all of this tenant\'s workload rules (the workloads they bound keep them)',
      response: { 204: lazy(() => z.null()) },
    },
  }, async (request, reply) => {
    workloadRules.clear(request.tenant.id);
    return reply.code(204).send(null);
  });
}) satisfies FastifyPluginAsyncZod;
