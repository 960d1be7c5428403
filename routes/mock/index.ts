import type { FastifyPluginAsync } from 'fastify';
import { deriveErrorResponses } from '../../server/http/error-responses.js';
import { emptyBodyWhereAllOptional } from '../../server/http/optional-body.js';
import mockAdmissionRoutes from './admission.js';
import mockAssetRoutes from './assets.js';
import mockClockRoutes from './clock.js';
import mockEvidenceRoutes from './evidence.js';
import mockFaultRoutes from './faults.js';
import mockRequestRoutes from './requests.js';
import mockResetRoutes from './reset.js';
import mockSnapshotRoutes from './snapshot.js';
import mockWebhookRoutes from './webhooks.js';
import mockWorkloadRoutes from './workloads.js';
import mockWorkloadRuleRoutes from './workload-rules.js';

/**
 * The control API, registered with the prefix /_mock: keyed like /v1, never faulted, journaled as
 * the tenant's control calls but for the routes that read the journal. Each handler runs after the
 * journal's waiting rows are written, so what it reads or deletes includes every request answered
 * before it. A route whose body fields are all optional takes no body at all as `{}`; each route's
 * error responses are derived from what it takes, beside the ones its own rules answer.
 */
const mock: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', app.authenticate);
  app.addHook('onRequest', app.journalHooks.recordControl);
  app.addHook('preHandler', app.journalHooks.flushFirst);
  app.setNotFoundHandler(app.notFound);
  app.addHook('onRoute', emptyBodyWhereAllOptional);
  app.addHook('onRoute', deriveErrorResponses);

  await app.register(mockClockRoutes);
  await app.register(mockAdmissionRoutes);
  await app.register(mockWorkloadRoutes);
  await app.register(mockFaultRoutes);
  await app.register(mockWorkloadRuleRoutes);
  await app.register(mockRequestRoutes);
  await app.register(mockResetRoutes);
  await app.register(mockSnapshotRoutes);
  await app.register(mockEvidenceRoutes);
  await app.register(mockAssetRoutes);
  await app.register(mockWebhookRoutes);
};

export default mock;
