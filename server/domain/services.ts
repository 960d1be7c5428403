import type { Store } from '../../store/index.js';
import type { Config } from '../config.js';
import { createAssetService } from './assets/service.js';
import type { Catalog } from './catalog/index.js';
import { createComputeService } from './compute/service.js';
import { createConnectionService } from './connections/service.js';
import { createCatalogService } from './catalog/service.js';
import { VirtualClock } from './clock.js';
import type { DomainContext } from './context.js';
import { createRequestService } from './control/requests.js';
import { createControlService } from './control/service.js';
import { createWorkloadRuleService } from './control/workload-rules.js';
import { createEvidenceService } from './evidence/service.js';
import { createReviewTokens, REVIEW_SECRET } from './launches/rl-runs.js';
import { createLaunchService } from './launches/service.js';
import { createSecretService } from './secrets/service.js';
import { createSnapshotService } from './snapshots/service.js';
import { createWebhookService } from './webhooks/service.js';
import { createUnitsOfWork, domainPorts } from './unit-of-work.js';
import { Materialiser } from './workloads/materialise.js';
import { createOutputCache } from './workloads/outputs.js';
import { createWorkloadService } from './workloads/service.js';

interface ServiceOptions {
  config: Config;
  store: Store;
  catalog: Catalog;
  /** Wall clock behind realtime virtual time; tests may replace it. */
  wallNow?: () => number;
}

/**
 * Every domain service, built once over one store, clock and catalog. Each service method is one
 * unit of work (unit-of-work.ts): a route calls one method and presents what it answers. Nothing here knows HTTP,
 * so domain tests build this over `:memory:` without a server.
 */
export function createServices(options: ServiceOptions) {
  const { config, store, catalog } = options;
  const ports = domainPorts(store);
  const { committed } = ports;
  const clock = new VirtualClock(committed.cached, config, options.wallNow);
  const materialiser = new Materialiser({ committed, config });
  const context: DomainContext = {
    config,
    ...ports,
    catalog,
    clock,
    materialiser,
    units: createUnitsOfWork({ store, clock, materialiser }),
    reviews: createReviewTokens(store.settings.secret(REVIEW_SECRET)),
    outputs: createOutputCache(),
  };
  return {
    context,
    workloads: createWorkloadService(context),
    catalog: createCatalogService(context),
    launches: createLaunchService(context),
    evidence: createEvidenceService(context),
    control: createControlService(context),
    requests: createRequestService(context),
    workloadRules: createWorkloadRuleService(context),
    assets: createAssetService(context),
    webhooks: createWebhookService(context),
    secrets: createSecretService(context),
    connections: createConnectionService(context),
    compute: createComputeService(context),
    snapshots: createSnapshotService(context),
  };
}

export type Services = ReturnType<typeof createServices>;
