import type { FastifyPluginAsync } from 'fastify';
import { deriveErrorResponses } from '../../server/http/error-responses.js';
import assetRoutes from './assets.js';
import computeRoutes from './compute.js';
import connectionRoutes from './connections.js';
import meRoutes from './me.js';
import outputRoutes from './outputs.js';
import rlEnvironmentRoutes from './rl-environments.js';
import rlEventRoutes from './rl-events.js';
import rlGradingRoutes from './rl-grading.js';
import rlRecipeRoutes from './rl-recipes.js';
import rlRunRoutes from './rl-runs.js';
import rlSummaryRoutes from './rl-summary.js';
import secretRoutes from './secrets.js';
import workloadFreezeRoutes from './workload-freeze.js';
import workloadLogRoutes from './workload-logs.js';
import workloadRecordRoutes from './workload-records.js';
import webhookRoutes from './webhooks.js';
import workloadRoutes from './workloads.js';

/**
 * The contract's surface, registered with the prefix /v1. Its hooks are added in this context, so
 * they act on these routes (and on unknown paths under /v1) and on no others: the key check and
 * the request journal (the /_mock context adds its own), and the fault rules, which no /_mock
 * route meets (webhook deliveries meet them in the delivery worker). Each route's error responses
 * are derived from what it takes, beside the ones its own rules answer.
 */
const v1: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', app.authenticate);
  app.addHook('onRequest', app.journalHooks.recordApi);
  app.addHook('preValidation', app.faultHooks.preValidation);
  app.addHook('onSend', app.faultHooks.onSend);
  app.setNotFoundHandler(app.notFound);
  app.addHook('onRoute', deriveErrorResponses);

  await app.register(meRoutes);
  await app.register(rlRecipeRoutes);
  await app.register(rlRunRoutes);
  await app.register(workloadRoutes);
  await app.register(outputRoutes);
  await app.register(rlEventRoutes);
  await app.register(rlGradingRoutes);
  await app.register(rlSummaryRoutes);
  await app.register(rlEnvironmentRoutes);
  await app.register(workloadLogRoutes);
  await app.register(workloadFreezeRoutes);
  await app.register(workloadRecordRoutes);
  await app.register(assetRoutes);
  await app.register(webhookRoutes);
  await app.register(secretRoutes);
  await app.register(connectionRoutes);
  await app.register(computeRoutes);
};

export default v1;
